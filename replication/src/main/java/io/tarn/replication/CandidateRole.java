package io.tarn.replication;

import io.tarn.replication.Message.RequestVote;
import io.tarn.replication.Message.VoteReply;
import java.util.HashMap;
import java.util.Map;

/**
 * Candidate: has durably voted for itself in a new term, asks the other members for votes and
 * collects their non-final entries. On a quorum of usable votes it runs the {@link Merge} and
 * becomes LEADER; on timeout it becomes a FOLLOWER running a pre-vote round (or, without
 * {@link ReplicationConfig#preVote()}, stands again in the next term); on a higher term or a leader
 * of its own term it becomes FOLLOWER.
 */
final class CandidateRole extends RoleState {

    private final boolean leaderTransfer;
    private final Map<Integer, VoteReply> granted = new HashMap<>();
    private final long electionDeadline;
    private boolean selfVoteDurable;

    CandidateRole(Replica replica, boolean leaderTransfer) {
        super(replica);
        this.leaderTransfer = leaderTransfer;
        this.electionDeadline = replica.now() + replica.randomElectionTimeout();
        replica.persistHardState(this::requestVotes);
    }

    @Override
    Role role() {
        return Role.CANDIDATE;
    }

    private void requestVotes() {
        if (replica.roleState() != this) {
            return;
        }
        selfVoteDurable = true;
        ReplicaLog log = replica.log;
        for (int peer : replica.members()) {
            if (peer != replica.id) {
                replica.send(new RequestVote(replica.id, peer, replica.term(), log.syncedTerm(), log.lastIndex(),
                        log.contiguousIndex(), leaderTransfer));
            }
        }
        checkWon();
    }

    @Override
    void onTick() {
        if (replica.now() >= electionDeadline) {
            replica.electionTimedOut();
        }
    }

    @Override
    void onMessage(Message message) {
        if (message instanceof VoteReply reply) {
            if (reply.term() == replica.term() && reply.granted() && reply.voter() && usable(reply)
                    && replica.members().contains(reply.from())) {
                granted.put(reply.from(), reply);
                checkWon();
            }
        } else if (message instanceof Message.Append || message instanceof Message.Sync
                || message instanceof Message.InstallCheckpoint) {
            replica.stepDown(message.term(), message.from());
            replica.roleState().onMessage(message);
        }
    }

    /**
     * A vote whose voter shares our synced term must be able to supply every entry above our
     * contiguous index; one that compacted past it cannot, so it is not counted.
     */
    private boolean usable(VoteReply reply) {
        return reply.syncedTerm() != replica.log.syncedTerm()
                || reply.logStart() <= replica.log.contiguousIndex() + 1;
    }

    private void checkWon() {
        if (selfVoteDurable && granted.size() + 1 >= replica.quorum()) {
            MergeResult merged = Merge.merge(replica.log, replica.term(), granted.values(),
                    replica.config.unsafePaperMerge());
            replica.becomeLeader(merged);
        }
    }
}
