package io.tarn.replication;

import io.tarn.replication.Message.Append;
import io.tarn.replication.Message.AppendReply;
import io.tarn.replication.Message.InstallCheckpoint;
import io.tarn.replication.Message.InstallCheckpointReply;
import io.tarn.replication.Message.Sync;
import io.tarn.replication.Message.SyncReply;
import io.tarn.replication.Message.TimeoutNow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Leader of one term. It starts in the sync stage: its merged log is written locally and sent to
 * every follower with {@link Sync}; once a quorum (itself included) holds it durably, every merged
 * entry is committed and the leader turns active. Active, it appends client writes, sends each to
 * every synced follower at once (within the window beyond the follower's acknowledged prefix and
 * the follower's cap on bytes in flight; see {@link Progress}),
 * commits an entry as soon as a quorum holds it (PARALLEL) or the prefix through it (IN_ORDER),
 * replies after apply, serves reads under a lease or read index, promotes caught-up rejoiners and
 * new members, changes the membership one member at a time and hands leadership over on request.
 * Leaves for FOLLOWER on a higher term, on losing contact with a quorum for an election timeout,
 * after a leadership transfer, or once a change removing it commits.
 *
 * <p>Membership changes are barriers in the out-of-order log: a configuration entry is appended
 * only when every entry before it is committed and the previous change is committed, and no write
 * is appended after it until it commits. Every entry therefore commits under exactly one
 * configuration, and two consecutive configurations differ by one member, so any majority of one
 * meets any majority of the other (Raft's single-server change). The sync stage commits the new
 * leader's merged log in its own term before it may propose a change, which Raft achieves with a
 * no-op entry.
 */
final class LeaderRole extends RoleState {

    /** Look-behind range for a predecessor this leader no longer holds: conflicts with everything. */
    private static final BlockRange UNKNOWN_RANGE = new BlockRange(0, Integer.MAX_VALUE);

    private record WriteKey(long clientId, long sequence) {
    }

    private final long term;
    private final long syncEnd;
    private final long startedAt;
    private final Map<Integer, Progress> peers = new LinkedHashMap<>();
    private final Map<Long, Long> probeSentAt = new HashMap<>();
    private final Map<Long, WriteCommand> awaitingApply = new HashMap<>();
    private final Map<WriteKey, Long> indexOfWrite = new HashMap<>();
    private final ReadTracker reads = new ReadTracker();
    private boolean selfSynced;
    private boolean active;
    private long selfDurable;
    private long probe;
    private long confirmedProbe;
    private long lastHeartbeatAt;
    private int transferTarget = -1;
    private long transferDeadline;
    private List<Integer> pendingChange;

    LeaderRole(Replica replica, MergeResult merge) {
        super(replica);
        this.term = replica.term();
        this.syncEnd = merge.syncEnd();
        this.startedAt = replica.now();
        replica.writeSync(merge.base(), merge.syncEnd(), merge.entries(), this::selfSyncDurable);
        // The members probably hold the merged base; each will report what it really holds.
        updatePeers(merge.base());
        heartbeat();
    }

    /**
     * Follows the members the log defines: new members get a progress that assumes they hold
     * {@code finalPrefixGuess}, removed ones lose theirs.
     */
    private void updatePeers(long finalPrefixGuess) {
        List<Integer> members = replica.members();
        peers.keySet().removeIf(peer -> !members.contains(peer));
        for (int peer : members) {
            if (peer != replica.id && !peers.containsKey(peer)) {
                peers.put(peer, new Progress(peer, finalPrefixGuess, replica.now()));
            }
        }
    }

    /** This leader counts in its own quorums only while it is a member. */
    private int self() {
        return replica.inConfiguration() ? 1 : 0;
    }

    @Override
    Role role() {
        return Role.LEADER;
    }

    boolean isActive() {
        return active;
    }

    /**
     * The members this leader knows to vote and to hold its log: itself (while a voting member) and
     * each follower whose last answer said it votes and whose log is synced with this leader's.
     * A member joining empty is not among them until it caught up and was promoted.
     */
    List<Integer> confirmedVoters() {
        List<Integer> out = new ArrayList<>(peers.size() + 1);
        if (replica.inConfiguration() && replica.voter()) {
            out.add(replica.id);
        }
        for (Progress p : peers.values()) {
            if (p.voter && p.synced) {
                out.add(p.id);
            }
        }
        out.sort(null);
        return out;
    }

    // ---------------------------------------------------------------- sync stage

    private void selfSyncDurable() {
        if (replica.roleState() == this) {
            selfSynced = true;
            selfDurable = Math.max(selfDurable, syncEnd);
            checkSyncCommitted();
        }
    }

    private void checkSyncCommitted() {
        if (active || !selfSynced) {
            return;
        }
        int holders = self();
        for (Progress p : peers.values()) {
            if (p.voter && p.synced) {
                holders++;
            }
        }
        if (holders >= replica.quorum()) {
            active = true;
            replica.log.learnCommitted(syncEnd, List.of());
            indexPendingWrites();
            heartbeat();
        }
    }

    /** Lets client retries of writes proposed by earlier leaders attach to their merged entries. */
    private void indexPendingWrites() {
        ReplicaLog log = replica.log;
        for (LogEntry e : log.range(log.appliedPrefix(), log.lastIndex())) {
            if (!e.isNoop() && !log.isApplied(e.index())) {
                indexOfWrite.put(new WriteKey(e.command().clientId(), e.command().sequence()), e.index());
            }
        }
    }

    private void sendSync(Progress p) {
        ReplicaLog log = replica.log;
        if (p.finalPrefix < log.logStart() - 1) {
            sendCheckpoint(p);
            return;
        }
        if (p.syncSentAt != Progress.NEVER) {
            p.syncResends++;
        }
        p.syncSentAt = replica.now();
        List<LogEntry> entries = log.range(p.finalPrefix, syncEnd);
        replica.send(new Sync(replica.id, p.id, term, p.finalPrefix, syncEnd, entries, log.commitPrefix()));
    }

    private void sendCheckpoint(Progress p) {
        if (replica.now() - p.checkpointSentAt < 5L * replica.config.retransmitTicks()) {
            return;
        }
        p.checkpointSentAt = replica.now();
        Checkpoint cp = replica.log.checkpoint();
        replica.send(new InstallCheckpoint(replica.id, p.id, term, cp.meta(), cp.image()));
    }

    // ---------------------------------------------------------------- messages

    @Override
    void onMessage(Message message) {
        if (message instanceof AppendReply r) {
            onAppendReply(r);
        } else if (message instanceof SyncReply r) {
            onSyncReply(r);
        } else if (message instanceof InstallCheckpointReply r) {
            onInstallReply(r);
        }
    }

    /**
     * The host could not deliver a message of this term to a follower: what it carried may be lost,
     * so the follower's entries and sync are resent at the usual timeouts until it acknowledges an
     * entry sent once again. Nothing is sent here: the next tick resends what is due, so a peer
     * that refuses every connection at once is not flooded.
     */
    @Override
    void onSendFailed(Message message) {
        Progress p = peers.get(message.to());
        if (p != null && message.term() == term) {
            p.lossSuspected = true;
        }
    }

    /**
     * The lowest index a follower heard from within an election timeout still needs: the first it
     * has not acknowledged, or for one not synced in this term the first above its durable prefix.
     * A follower silent for longer (down, cut off) is not waited for: it catches up from an image.
     */
    @Override
    long neededFrom() {
        long needed = Long.MAX_VALUE;
        long now = replica.now();
        for (Progress p : peers.values()) {
            if (now - p.lastContact < replica.config.electionTimeoutMax() && !gaveUpOn(p, now)) {
                needed = Math.min(needed, (p.synced ? p.ackPrefix : p.finalPrefix) + 1);
            }
        }
        return needed;
    }

    /** Records contact from a member; null for a sender that is no longer one. */
    private Progress contact(Message reply, boolean voter) {
        Progress p = peers.get(reply.from());
        if (p == null) {
            return null;
        }
        p.heard(replica.now(), 2L * replica.config.heartbeatTicks());
        if (!voter && p.voter) {
            p.voter = false;
            p.rejoinProbe = probe;
        } else if (voter && !p.voter) {
            p.voter = true;
            p.promote = false;
            recheckCommits();
        }
        return p;
    }

    private void onAppendReply(AppendReply r) {
        Progress p = contact(r, r.voter());
        if (p == null) {
            return;
        }
        p.probeAcked = Math.max(p.probeAcked, r.probe());
        if (!r.synced()) {
            // Always forget its acknowledgments: a follower that restarted on a wiped disk no longer
            // holds what it acknowledged before, and counting those would skip entries it lacks.
            boolean resend = p.synced || syncDue(p);
            long syncSentAt = p.syncSentAt;
            p.unsynced(r.finalPrefix());
            p.syncSentAt = syncSentAt;
            if (resend) {
                sendSync(p);
            }
        } else {
            for (long index : r.acked()) {
                p.ack(index, replica.now());
            }
            for (long index : r.acked()) {
                checkCommit(index);
            }
            caughtUp(p);
            sendAppends(p);
        }
        updateConfirmedProbe();
        checkTransfer();
    }

    private void onSyncReply(SyncReply r) {
        Progress p = contact(r, r.voter());
        if (p == null) {
            return;
        }
        p.finalPrefix = r.finalPrefix();
        p.syncSentAt = Progress.NEVER;
        p.syncResends = 0;
        if (r.success()) {
            p.synced = true;
            p.ackThrough(syncEnd);
            caughtUp(p);
            checkSyncCommitted();
            recheckCommits();
            sendAppends(p);
        } else {
            p.unsynced(r.finalPrefix());
            sendSync(p);
        }
    }

    private void onInstallReply(InstallCheckpointReply r) {
        Progress p = contact(r, r.voter());
        if (p == null) {
            return;
        }
        p.finalPrefix = r.finalPrefix();
        p.checkpointSentAt = Progress.NEVER;
        if (p.synced) {
            p.ackThrough(r.finalPrefix());
            recheckCommits();
            sendAppends(p);
        } else {
            sendSync(p);
        }
    }

    // ---------------------------------------------------------------- replication and commit

    private Append appendTo(Progress p, List<LogEntry> entries) {
        ReplicaLog log = replica.log;
        return new Append(replica.id, p.id, term, entries, log.commitPrefix(), log.committedAboveList(), probe,
                p.promote);
    }

    private boolean syncDue(Progress p) {
        ReplicationConfig config = replica.config;
        return p.syncDue(replica.now(), config.retransmitTicks(), config.retransmitMaxTicks(),
                config.reliableLinks());
    }

    /**
     * Sends new entries within the follower's window while their payload bytes fit under
     * {@code maxBytesInFlight} (at least one entry when nothing is in flight), and resends entries
     * whose retransmit timeout expired and whose copy here is durable; a resend round backs the
     * timeout off (see {@link Progress}). Heartbeats go separately, on their own period, whatever
     * this holds back.
     */
    private void sendAppends(Progress p) {
        if (!active || !p.synced) {
            return;
        }
        ReplicaLog log = replica.log;
        if (p.ackPrefix + 1 < log.logStart()) {
            sendCheckpoint(p);
            return;
        }
        ReplicationConfig config = replica.config;
        long now = replica.now();
        long timeout = p.retransmitTimeout(config.retransmitTicks(), config.retransmitMaxTicks(),
                config.reliableLinks());
        long hi = Math.min(log.lastIndex(), p.ackPrefix + config.window());
        List<LogEntry> batch = null;
        boolean resent = false;
        boolean full = false;
        for (long i = p.ackPrefix + 1; i <= hi; i++) {
            if (p.acked(i)) {
                continue;
            }
            Progress.InFlight sent = p.inFlight.get(i);
            // A copy is not resent before this leader's own is durable: the follower forces the same
            // bytes, so while our journal is slower than the timeout the follower's likely is too.
            if (sent != null ? now - sent.sentAt < timeout || i > selfDurable : full) {
                continue;
            }
            LogEntry e = log.get(i);
            if (e == null) {
                continue;
            }
            int bytes = payloadBytes(e);
            if (sent == null && !p.admits(bytes, config.maxBytesInFlight())) {
                // Later entries wait for acknowledgments; due resends further up still go.
                full = true;
                continue;
            }
            resent |= sent != null;
            p.sent(i, bytes, now);
            if (batch == null) {
                batch = new ArrayList<>();
            }
            batch.add(e);
        }
        if (resent) {
            p.backOff();
        }
        if (batch != null) {
            replica.send(appendTo(p, batch));
        }
    }

    /** The bytes an entry counts in flight: its client payload (no-ops and configurations count 0). */
    static int payloadBytes(LogEntry entry) {
        return entry.isNoop() ? 0 : entry.command().payload().length();
    }

    private boolean replicatedOnQuorum(long index) {
        int holders = selfDurable >= index ? self() : 0;
        for (Progress p : peers.values()) {
            if (p.voter && p.synced && p.acked(index)) {
                holders++;
            }
        }
        return holders >= replica.quorum();
    }

    private void checkCommit(long index) {
        ReplicaLog log = replica.log;
        if (!active || index <= syncEnd) {
            return;
        }
        if (replica.config.mode() == Mode.PARALLEL) {
            if (!log.isCommitted(index) && index <= log.lastIndex() && replicatedOnQuorum(index)) {
                log.learnCommitted(log.commitPrefix(), List.of(index));
            }
            return;
        }
        while (log.commitPrefix() < log.lastIndex() && replicatedOnQuorum(log.commitPrefix() + 1)) {
            log.learnCommitted(log.commitPrefix() + 1, List.of());
        }
    }

    /**
     * Re-evaluates every uncommitted entry: acknowledgments recorded while a follower was not yet
     * synced, or not yet a voter, start counting only now.
     */
    private void recheckCommits() {
        ReplicaLog log = replica.log;
        for (long i = log.commitPrefix() + 1; i <= log.lastIndex(); i++) {
            checkCommit(i);
        }
    }

    // ---------------------------------------------------------------- clients

    @Override
    void onClientWrite(WriteCommand command) {
        if (!active || transferTarget >= 0) {
            replyWrite(command, Status.LEADER_NOT_READY);
            return;
        }
        if (replica.sessions.isDuplicate(command.clientId(), command.sequence())) {
            replyWrite(command, Status.OK);
            return;
        }
        WriteKey key = new WriteKey(command.clientId(), command.sequence());
        Long pendingIndex = indexOfWrite.get(key);
        if (pendingIndex != null) {
            awaitingApply.put(pendingIndex, command);
            return;
        }
        clockLaggards();
        if (!hasRoom()) {
            replyWrite(command, Status.BUSY);
            return;
        }
        append(command, key);
    }

    /** Why a new write would be refused {@link Status#BUSY} now, in words; null when it would not. */
    String busyReason() {
        ReplicaLog log = replica.log;
        int window = replica.config.window();
        if (log.lastIndex() - log.commitPrefix() >= window) {
            return "its window of " + window + " writes above the commit prefix is full (commit prefix "
                    + log.commitPrefix() + ", last index " + log.lastIndex() + ")";
        }
        if (changeUnderWay()) {
            return "a membership change is under way";
        }
        long now = replica.now();
        Progress p = waitedFor(now);
        if (p == null) {
            return null;
        }
        long has = p.synced ? p.ackPrefix : p.finalPrefix;
        return "it waits for member " + p.id + " to catch up before its next checkpoint cuts the log (member " + p.id
                + " holds entries up to " + has + " of " + log.lastIndex() + "; waited "
                + (p.laggingSince == Progress.NEVER ? 0 : now - p.laggingSince) + " of at most "
                + replica.config.laggardWaitTicks() + " ticks)";
    }

    /** Whether a new write would be proposed now ({@link Replica#admitsWrites()}). */
    boolean admitsWrites() {
        return active && transferTarget < 0 && hasRoom();
    }

    /** Room in the window, no membership change under way, no live voter about to fall off the log. */
    private boolean hasRoom() {
        ReplicaLog log = replica.log;
        return log.lastIndex() - log.commitPrefix() < replica.config.window() && !changeUnderWay()
                && !voterFallingOffTheLog();
    }

    /**
     * Whether a voter heard from within an election timeout still catches up from the log but needs
     * entries below where the next checkpoint may cut it (the previous checkpoint's cut, see the
     * replica's compaction): new writes then wait until it catches up, so a live voter slower than
     * the quorum (a slower disk, a busier host) paces the group instead of falling behind until only
     * a whole image of the region can bring it back. A silent voter, or one already past the log
     * (it gets an image), is not waited for, nor one waited for longer than
     * {@link ReplicationConfig#laggardWaitTicks()} since the first refusal for it.
     */
    private boolean voterFallingOffTheLog() {
        return waitedFor(replica.now()) != null;
    }

    /** The lagging voter new writes wait for ({@link #voterFallingOffTheLog()}), or null. */
    private Progress waitedFor(long now) {
        for (Progress p : peers.values()) {
            if (lagging(p, now) && !gaveUpOn(p, now)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Before a write is admitted or refused: starts the wait for each voter that now lags (the
     * first refusal for it) and forgets it for each that no longer does. Only a client write
     * starts the clock, so asking ({@link #admitsWrites()}, {@link #busyReason()}) changes nothing.
     */
    private void clockLaggards() {
        long now = replica.now();
        for (Progress p : peers.values()) {
            if (!lagging(p, now)) {
                p.laggingSince = Progress.NEVER;
            } else if (p.laggingSince == Progress.NEVER) {
                p.laggingSince = now;
            }
        }
    }

    /** Whether {@code p} is a live voter still on the log but below where the next checkpoint may cut it. */
    private boolean lagging(Progress p, long now) {
        ReplicaLog log = replica.log;
        long floor = log.checkpoint().meta().index() - replica.config.window();
        long needed = (p.synced ? p.ackPrefix : p.finalPrefix) + 1;
        return floor > 0 && p.voter && now - p.lastContact < replica.config.electionTimeoutMax()
                && needed >= log.logStart() && needed - 1 < floor;
    }

    /** Forgets when {@code p} started lagging once it no longer does, so a later lag is waited for afresh. */
    private void caughtUp(Progress p) {
        if (p.laggingSince != Progress.NEVER && !lagging(p, replica.now())) {
            p.laggingSince = Progress.NEVER;
        }
    }

    /** Whether the leader waited for lagging {@code p} longer than it may and now lets it fall off the log. */
    private boolean gaveUpOn(Progress p, long now) {
        return p.laggingSince != Progress.NEVER && now - p.laggingSince > replica.config.laggardWaitTicks();
    }

    private void append(WriteCommand command, WriteKey key) {
        ReplicaLog log = replica.log;
        long index = log.lastIndex() + 1;
        List<BlockRange> lookBehind = new ArrayList<>();
        for (long j = index - 1; j >= 1 && j >= index - replica.config.lookBehind(); j--) {
            LogEntry prev = log.get(j);
            lookBehind.add(prev != null ? prev.range() : UNKNOWN_RANGE);
        }
        LogEntry entry = new LogEntry(term, index, command.range(), lookBehind, command);
        indexOfWrite.put(key, index);
        awaitingApply.put(index, command);
        writeOwn(entry);
    }

    /** Writes one of this leader's new entries locally and sends it to every follower. */
    private void writeOwn(LogEntry entry) {
        replica.writeEntries(List.of(entry), durable -> {
            if (replica.roleState() == this) {
                for (LogEntry e : durable) {
                    selfDurable = Math.max(selfDurable, e.index());
                    checkCommit(e.index());
                }
            }
        });
        for (Progress p : peers.values()) {
            sendAppends(p);
        }
    }

    private void replyWrite(WriteCommand command, Status status) {
        int hint = status == Status.LEADER_NOT_READY && transferTarget >= 0 ? transferTarget : replica.id;
        replica.emit(new Effect.Reply(new ClientReply.WriteReply(command.clientId(), command.sequence(), status,
                status == Status.ABORTED ? -1 : hint)));
    }

    @Override
    void onApplied(LogEntry entry) {
        if (entry.isConfiguration()) {
            if (!replica.inConfiguration() && replica.roleState() == this) {
                handOver();
            }
            return;
        }
        WriteCommand waiting = awaitingApply.remove(entry.index());
        indexOfWrite.remove(new WriteKey(entry.command().clientId(), entry.command().sequence()));
        if (waiting != null) {
            replyWrite(waiting, Status.OK);
        }
    }

    @Override
    void onClientRead(ClientRead read) {
        if (!active || transferTarget >= 0) {
            replica.emit(new Effect.Reply(new ClientReply.ReadReply(read.clientId(), read.readId(), read.range(),
                    Status.LEADER_NOT_READY, replica.id)));
            return;
        }
        long readIndex = replica.log.lastIndex();
        if (leaseValid()) {
            reads.add(read, readIndex, 0);
        } else {
            reads.add(read, readIndex, probe + 1);
            heartbeat();
        }
    }

    private boolean leaseValid() {
        Long sentAt = probeSentAt.get(confirmedProbe);
        return replica.config.leaseTicks() > 0 && sentAt != null
                && replica.now() < sentAt + replica.config.leaseTicks();
    }

    @Override
    void afterApply() {
        maybeProposeChange();
        if (reads.isEmpty()) {
            return;
        }
        for (ClientRead read : reads.release(confirmedProbe, replica.log)) {
            replica.emit(new Effect.Reply(new ClientReply.ReadReply(read.clientId(), read.readId(), read.range(),
                    Status.OK, replica.id)));
        }
    }

    @Override
    void onExit() {
        for (WriteCommand command : awaitingApply.values()) {
            replyWrite(command, Status.ABORTED);
        }
        awaitingApply.clear();
        for (ClientRead read : reads.drain()) {
            replica.emit(new Effect.Reply(new ClientReply.ReadReply(read.clientId(), read.readId(), read.range(),
                    Status.ABORTED, -1)));
        }
    }

    // ---------------------------------------------------------------- heartbeats, leases, housekeeping

    private void heartbeat() {
        probe++;
        probeSentAt.put(probe, replica.now());
        probeSentAt.keySet().removeIf(p -> p < confirmedProbe);
        lastHeartbeatAt = replica.now();
        for (Progress p : peers.values()) {
            replica.send(appendTo(p, List.of()));
            if (!p.synced && syncDue(p)) {
                sendSync(p);
            }
        }
    }

    /** The highest heartbeat a quorum (this leader included) has echoed. */
    private void updateConfirmedProbe() {
        long[] acked = new long[peers.size() + 1];
        int n = 0;
        acked[n++] = self() == 1 ? probe : 0;
        for (Progress p : peers.values()) {
            acked[n++] = p.voter ? p.probeAcked : 0;
        }
        Arrays.sort(acked);
        long quorumProbe = acked[Math.max(0, acked.length - replica.quorum())];
        confirmedProbe = Math.max(confirmedProbe, quorumProbe);
    }

    @Override
    void onTick() {
        long now = replica.now();
        if (now - lastHeartbeatAt >= replica.config.heartbeatTicks()) {
            heartbeat();
        }
        for (Progress p : peers.values()) {
            if (p.synced) {
                sendAppends(p);
            } else if (syncDue(p)) {
                sendSync(p);
            }
        }
        if (checkQuorumLost()) {
            return;
        }
        checkTransfer();
        checkPromotions();
    }

    /**
     * Steps down when no quorum was heard from for {@link ReplicationConfig#stepDownTicks()}: a
     * leader cut off from the others.
     */
    private boolean checkQuorumLost() {
        long now = replica.now();
        int window = replica.config.stepDownTicks();
        if (now - startedAt < window) {
            return false;
        }
        int heard = self();
        for (Progress p : peers.values()) {
            if (p.voter && now - p.lastContact < window) {
                heard++;
            }
        }
        if (heard < replica.quorum()) {
            replica.stepDown(term, -1);
            return true;
        }
        return false;
    }

    @Override
    void onTransferRequest(int target) {
        Progress p = peers.get(target);
        if (!active || p == null || !p.voter) {
            return;
        }
        transferTarget = target;
        transferDeadline = replica.now() + replica.config.electionTimeoutMin();
        checkTransfer();
    }

    private void checkTransfer() {
        if (transferTarget < 0 || replica.roleState() != this) {
            return;
        }
        if (replica.now() > transferDeadline) {
            transferTarget = -1;
            return;
        }
        Progress p = peers.get(transferTarget);
        if (p == null) {
            transferTarget = -1;
            return;
        }
        if (p.synced && p.voter && p.ackPrefix >= replica.log.lastIndex()) {
            int target = transferTarget;
            replica.send(new TimeoutNow(replica.id, target, term));
            replica.stepDown(term, target);
        }
    }

    // ---------------------------------------------------------------- membership

    @Override
    Status onMembershipChange(List<Integer> target) {
        if (!active || transferTarget >= 0) {
            return Status.LEADER_NOT_READY;
        }
        if (changeUnderWay() || liveVoters(target) < target.size() / 2 + 1) {
            return Status.BUSY;
        }
        pendingChange = List.copyOf(target);
        maybeProposeChange();
        return Status.OK;
    }

    /**
     * Members of {@code target} that can acknowledge now: this leader if it stays, and voters heard
     * from within the minimum election timeout. A change goes ahead only if they are a quorum of
     * the new configuration, so it can commit without waiting for a dead member to return or a new
     * one to be promoted (a dead member is removed first, then its replacement added).
     */
    private int liveVoters(List<Integer> target) {
        int live = target.contains(replica.id) ? 1 : 0;
        for (Progress p : peers.values()) {
            if (target.contains(p.id) && p.voter
                    && replica.now() - p.lastContact < replica.config.electionTimeoutMin()) {
                live++;
            }
        }
        return live;
    }

    /** A change waits to be proposed, or the latest configuration entry is not committed yet. */
    private boolean changeUnderWay() {
        long latest = replica.log.lastConfigurationIndex();
        return pendingChange != null || (latest > 0 && !replica.log.isCommitted(latest));
    }

    /** Appends the pending change once nothing is in flight: the entry is a barrier. */
    private void maybeProposeChange() {
        ReplicaLog log = replica.log;
        if (pendingChange == null || !active || replica.roleState() != this
                || log.commitPrefix() < log.lastIndex()) {
            return;
        }
        LogEntry entry = LogEntry.configuration(term, log.lastIndex() + 1, pendingChange);
        pendingChange = null;
        writeOwn(entry);
        updatePeers(0);
        for (Progress p : peers.values()) {
            sendAppends(p);
        }
    }

    /** This leader's removal committed: the most caught-up member takes over at once. */
    private void handOver() {
        Progress best = null;
        for (Progress p : peers.values()) {
            if (p.voter && p.synced && (best == null || p.ackPrefix > best.ackPrefix)) {
                best = p;
            }
        }
        if (best != null) {
            replica.send(new TimeoutNow(replica.id, best.id, term));
        }
        replica.stepDown(term, best == null ? -1 : best.id);
    }

    /**
     * Promotes a rejoined non-voter once it holds every committed entry (also those committed out
     * of order above the commit prefix) and every other voter has echoed a heartbeat sent after
     * the rejoin was first seen. The second condition matters: the
     * replica forgot whom it voted for before losing its disk; any voter that could have run for a
     * higher term with that forgotten vote would have a higher term than ours and could not echo
     * our heartbeat, so the promoted replica (which records a vote for us in our term) cannot vote
     * twice in any term.
     */
    private void checkPromotions() {
        for (Progress p : peers.values()) {
            if (!p.voter && !p.promote && p.synced && p.rejoinProbe >= 0 && holdsEveryCommitted(p)
                    && othersEchoedAfter(p)) {
                p.promote = true;
                replica.send(appendTo(p, List.of()));
            }
        }
    }

    /**
     * Whether the follower holds every entry known committed, including those committed out of
     * order above the commit prefix: a committed entry whose only other copy was on the lost disk
     * must be on the rejoiner before it counts again, or a quorum without it could elect a leader
     * that lacks the entry.
     */
    private boolean holdsEveryCommitted(Progress p) {
        ReplicaLog log = replica.log;
        if (p.ackPrefix < log.commitPrefix()) {
            return false;
        }
        for (long index : log.committedAboveList()) {
            if (!p.acked(index)) {
                return false;
            }
        }
        return true;
    }

    private boolean othersEchoedAfter(Progress rejoiner) {
        for (Progress q : peers.values()) {
            if (q != rejoiner && (!q.voter || q.probeAcked <= rejoiner.rejoinProbe)) {
                return false;
            }
        }
        return true;
    }
}
