package io.tarn.replication;

import io.tarn.replication.Message.Append;
import io.tarn.replication.Message.AppendReply;
import io.tarn.replication.Message.InstallCheckpoint;
import io.tarn.replication.Message.InstallCheckpointReply;
import io.tarn.replication.Message.PreVote;
import io.tarn.replication.Message.PreVoteReply;
import io.tarn.replication.Message.Sync;
import io.tarn.replication.Message.SyncReply;
import io.tarn.replication.Message.TimeoutNow;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Follower: persists the leader's entries and acknowledges each once durable.
 *
 * <p>In PARALLEL mode entries are written in arrival order, holes allowed; in IN_ORDER mode only
 * the next contiguous entry is written and later arrivals wait in a reorder buffer bounded by the
 * window. Entries are accepted only once this replica has synced the leader's merged log for the
 * current term: that keeps every entry above the sync point from the synced term, which is what
 * makes the merge of the next leader safe. Leaves for CANDIDATE on {@link TimeoutNow} and on
 * election timeout (voters only); with {@link ReplicationConfig#preVote()} the timeout first starts
 * a pre-vote round, and only a quorum of grants (this replica's own included) starts the election.
 * A round that gathers too few runs again after another election timeout; a message from a leader
 * of the current term ends it.
 */
final class FollowerRole extends RoleState {

    private final TreeMap<Long, LogEntry> reorderBuffer = new TreeMap<>();
    private long electionDeadline;
    private long maxProbe;
    private long probeTerm = -1;
    private long pendingSyncEnd = -1;
    /** The term the pre-vote round in progress proposes; -1 when none runs. */
    private long preVoteTerm = -1;
    private final Set<Integer> preVotes = new HashSet<>();

    FollowerRole(Replica replica) {
        super(replica);
        resetElectionTimer();
    }

    @Override
    Role role() {
        return Role.FOLLOWER;
    }

    private void resetElectionTimer() {
        electionDeadline = replica.now() + replica.randomElectionTimeout();
    }

    @Override
    void onVoteGranted() {
        preVoteTerm = -1;
        resetElectionTimer();
    }

    @Override
    void onTick() {
        if (replica.voter() && replica.now() >= electionDeadline) {
            replica.electionTimedOut();
        }
    }

    /** Asks every other member whether it would vote for this replica in the next term. */
    void startPreVote() {
        resetElectionTimer();
        preVoteTerm = replica.term() + 1;
        preVotes.clear();
        ReplicaLog log = replica.log;
        for (int peer : replica.members()) {
            if (peer != replica.id) {
                replica.send(new PreVote(replica.id, peer, preVoteTerm, log.syncedTerm(), log.lastIndex(),
                        log.contiguousIndex()));
            }
        }
        checkPreVotes();
    }

    private void onPreVoteReply(PreVoteReply reply) {
        if (reply.granted() && preVoteTerm != -1 && reply.proposedTerm() == preVoteTerm
                && preVoteTerm == replica.term() + 1 && replica.members().contains(reply.from())) {
            preVotes.add(reply.from());
            checkPreVotes();
        }
    }

    private void checkPreVotes() {
        if (preVoteTerm != -1 && preVotes.size() + 1 >= replica.quorum()) {
            preVoteTerm = -1;
            replica.startElection(false);
        }
    }

    @Override
    void onMessage(Message message) {
        if (message instanceof Append a) {
            onAppend(a);
        } else if (message instanceof Sync s) {
            onSync(s);
        } else if (message instanceof InstallCheckpoint c) {
            onInstallCheckpoint(c);
        } else if (message instanceof TimeoutNow t) {
            onTimeoutNow(t);
        } else if (message instanceof PreVoteReply r) {
            onPreVoteReply(r);
        }
    }

    private void fromLeader(Message message) {
        preVoteTerm = -1;
        replica.leaderContact(message.from());
        resetElectionTimer();
    }

    private void onTimeoutNow(TimeoutNow t) {
        if (t.from() == replica.leaderHint()) {
            replica.startElection(true);
        }
    }

    private void onAppend(Append a) {
        fromLeader(a);
        if (a.term() != probeTerm) {
            probeTerm = a.term();
            maxProbe = 0;
        }
        maxProbe = Math.max(maxProbe, a.probe());
        if (a.promote() && !replica.voter()) {
            replica.promoteToVoter(a.from());
            replica.persistHardState(() -> replyAppend(a.from(), List.of()));
        }
        ReplicaLog log = replica.log;
        if (log.syncedTerm() != a.term()) {
            replyAppend(a.from(), List.of());
            return;
        }
        log.learnCommitted(a.commitPrefix(), a.committedAbove());
        List<Long> ackNow = new ArrayList<>();
        List<LogEntry> toWrite = new ArrayList<>();
        for (LogEntry e : a.entries()) {
            classify(e, a.term(), ackNow, toWrite);
        }
        if (replica.config.mode() == Mode.IN_ORDER) {
            toWrite = takeContiguous(toWrite);
        }
        replica.writeEntries(toWrite, this::ackDurable);
        replyAppend(a.from(), ackNow);
    }

    private void classify(LogEntry e, long term, List<Long> ackNow, List<LogEntry> toWrite) {
        ReplicaLog log = replica.log;
        if (e.term() != term || e.index() <= log.syncEnd()) {
            return;
        }
        if (!log.has(e.index())) {
            if (e.index() <= log.finalPrefix()) {
                ackNow.add(e.index());
            } else {
                toWrite.add(e);
            }
        } else if (log.get(e.index()).equals(e) && log.isDurable(e.index())) {
            ackNow.add(e.index());
        }
    }

    /** IN_ORDER: keeps only entries extending the contiguous prefix; buffers the rest. */
    private List<LogEntry> takeContiguous(List<LogEntry> arrived) {
        for (LogEntry e : arrived) {
            if (reorderBuffer.size() < replica.config.window() || e.index() < reorderBuffer.lastKey()) {
                reorderBuffer.put(e.index(), e);
            }
        }
        List<LogEntry> out = new ArrayList<>();
        long next = replica.log.contiguousIndex() + 1;
        reorderBuffer.headMap(next).clear();
        while (reorderBuffer.containsKey(next)) {
            out.add(reorderBuffer.remove(next));
            next++;
        }
        return out;
    }

    private void ackDurable(List<LogEntry> durable) {
        List<Long> acks = new ArrayList<>();
        for (LogEntry e : durable) {
            if (e.term() == replica.term()) {
                acks.add(e.index());
            }
        }
        if (!acks.isEmpty() && replica.roleState() == this && replica.leaderHint() >= 0) {
            replyAppend(replica.leaderHint(), acks);
        }
    }

    private void replyAppend(int leader, List<Long> acks) {
        ReplicaLog log = replica.log;
        replica.send(new AppendReply(replica.id, leader, replica.term(), log.syncedTerm() == replica.term(),
                replica.voter(), acks, log.finalPrefix(), probeTerm == replica.term() ? maxProbe : 0));
    }

    private void onSync(Sync s) {
        fromLeader(s);
        ReplicaLog log = replica.log;
        if (log.syncedTerm() == s.term() && log.syncEnd() == s.syncEnd()) {
            if (pendingSyncEnd != s.syncEnd()) {
                replySync(s.from(), true);
            }
            return;
        }
        if (s.baseIndex() > log.finalPrefix()) {
            replySync(s.from(), false);
            return;
        }
        reorderBuffer.clear();
        pendingSyncEnd = s.syncEnd();
        int leader = s.from();
        replica.writeSync(s.baseIndex(), s.syncEnd(), s.entries(), () -> {
            if (replica.roleState() == this && pendingSyncEnd == s.syncEnd()) {
                pendingSyncEnd = -1;
                replySync(leader, true);
            }
        });
        log.learnCommitted(s.commitPrefix(), List.of());
    }

    private void replySync(int leader, boolean success) {
        replica.send(new SyncReply(replica.id, leader, replica.term(), success, replica.voter(),
                replica.log.finalPrefix()));
    }

    private void onInstallCheckpoint(InstallCheckpoint c) {
        fromLeader(c);
        if (c.meta().index() <= replica.log.finalPrefix()) {
            replyInstalled(c.from());
            return;
        }
        reorderBuffer.clear();
        int leader = c.from();
        replica.installCheckpoint(new Checkpoint(c.meta(), c.image()), () -> {
            if (replica.roleState() == this) {
                replyInstalled(leader);
            }
        });
    }

    private void replyInstalled(int leader) {
        replica.send(new InstallCheckpointReply(replica.id, leader, replica.term(), replica.voter(),
                replica.log.finalPrefix()));
    }
}
