package io.tarn.replication;

import io.tarn.replication.Message.RequestVote;
import io.tarn.replication.Message.VoteReply;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * The ParallelRaft state machine of one replica of one block group: a pure, single-threaded core.
 *
 * <p>Inputs are {@link #handle(Message) messages}, {@link #tick() ticks}, {@link #onDiskComplete(long)
 * disk completions}, client requests and checkpoint captures; after each input the host calls
 * {@link #drainEffects()} and performs the returned {@link Effect}s in order. The core owns no
 * thread, socket or clock: time advances only through ticks and randomness comes from the seed
 * given at construction, so a simulator can replay any run exactly. Not thread-safe: one owner
 * thread per replica (an event loop) calls it.
 *
 * <p>Guarantees, given hosts that honour the {@link DiskOp} and {@link Effect} contracts: at most one
 * leader per term; a committed entry is never lost or changed; overlapping writes apply in log
 * order on every replica; a client write retried with the same sequence applies at most once;
 * reads are linearizable.
 */
public final class Replica {

    final ReplicationConfig config;
    final int id;
    final List<Integer> members;
    final int quorum;
    final ReplicaLog log;
    final Sessions sessions = new Sessions();
    private final List<Effect> effects = new ArrayList<>();
    private final ArrayDeque<PendingOp> pendingOps = new ArrayDeque<>();
    private final SplittableRandom random;
    private long nextOpId = 1;
    private long currentTerm;
    private int votedFor;
    private boolean voter;
    private long now;
    private RoleState role;
    private int leaderId = -1;
    private long lastLeaderContact;
    private boolean capturing;

    private record PendingOp(long id, Runnable onDurable) {
    }

    /**
     * Creates a replica from its durable state. After a restart the host must also restore its
     * block state from {@code state.checkpoint()} before delivering inputs.
     *
     * @param config  the group's settings
     * @param id      this replica's id, one of {@code members}
     * @param members ids of all replicas of the group
     * @param state   what survived on disk
     * @param seed    seed for the election timeouts
     */
    public Replica(ReplicationConfig config, int id, List<Integer> members, PersistentState state, long seed) {
        this.config = Objects.requireNonNull(config, "config");
        this.members = List.copyOf(members);
        if (!this.members.contains(id)) {
            throw new IllegalArgumentException("replica " + id + " is not a member of " + members);
        }
        this.id = id;
        this.quorum = this.members.size() / 2 + 1;
        this.log = new ReplicaLog(state);
        this.sessions.restore(state.checkpoint().meta().sessions());
        this.random = new SplittableRandom(seed);
        this.currentTerm = state.currentTerm();
        this.votedFor = state.votedFor();
        this.voter = state.voter();
        this.role = new FollowerRole(this);
    }

    // ---------------------------------------------------------------- inputs

    /** Advances this replica's clock by one tick. */
    public void tick() {
        now++;
        role.onTick();
        afterInput();
    }

    /** Handles a message from another replica of the group. */
    public void handle(Message message) {
        if (message.to() != id || message.from() == id || !members.contains(message.from())) {
            return;
        }
        if (message instanceof RequestVote request) {
            onRequestVote(request);
        } else if (message.term() < currentTerm) {
            role.onStaleMessage(message);
        } else {
            if (message.term() > currentTerm) {
                stepDown(message.term(), -1);
            }
            role.onMessage(message);
        }
        afterInput();
    }

    /** The host completed every disk operation up to and including {@code opId}. */
    public void onDiskComplete(long opId) {
        while (!pendingOps.isEmpty() && pendingOps.peek().id() <= opId) {
            pendingOps.poll().onDurable().run();
        }
        afterInput();
    }

    /** A client asks to write; the reply comes as an effect, possibly much later. */
    public void submitWrite(ClientWrite write) {
        role.onClientWrite(write.command());
        afterInput();
    }

    /** A client asks to read; the reply comes as an effect once the read may be served. */
    public void submitRead(ClientRead read) {
        role.onClientRead(read);
        afterInput();
    }

    /**
     * Stands for election at once instead of waiting for an election timeout, with the flag that
     * lets voters ignore their start-up stickiness. For the first leader of a brand-new group only
     * (the host names one member when the group is created, so the group serves its first write
     * without waiting out a timeout): no replica of a new group can hold a lease that this would
     * undercut. Ignored unless this replica is a voting follower that has never seen a leader.
     */
    public void campaign() {
        if (role instanceof FollowerRole && voter && leaderId == -1 && currentTerm == 0) {
            startElection(true);
        }
        afterInput();
    }

    /** Asks the leader to hand leadership to {@code target}; ignored by other roles. */
    public void transferLeadership(int target) {
        role.onTransferRequest(target);
        afterInput();
    }

    /** The host captured the image asked for by {@link Effect.CaptureCheckpoint}. */
    public void onCheckpointCaptured(CheckpointMeta meta, StateImage image) {
        if (meta.index() <= log.checkpoint().meta().index()) {
            capturing = false;
            return;
        }
        Checkpoint checkpoint = new Checkpoint(meta, image);
        long compactTo = Math.max(0, meta.index() - config.window());
        persist(opId -> new DiskOp.SaveCheckpoint(opId, checkpoint, compactTo), () -> {
            capturing = false;
            if (meta.index() > log.checkpoint().meta().index()) {
                log.checkpointSaved(checkpoint, compactTo);
            }
        });
        afterInput();
    }

    /** Returns and clears the effects produced so far, in the order the host must perform them. */
    public List<Effect> drainEffects() {
        List<Effect> out = List.copyOf(effects);
        effects.clear();
        return out;
    }

    // ---------------------------------------------------------------- observation

    /** This replica's id. */
    public int id() {
        return id;
    }

    /** The current role. */
    public Role role() {
        return role.role();
    }

    /** The current term. */
    public long currentTerm() {
        return currentTerm;
    }

    /** The leader this replica believes in, or -1. */
    public int leaderId() {
        return leaderId;
    }

    /** Whether this replica counts in quorums. */
    public boolean isVoter() {
        return voter;
    }

    /** Whether this replica leads and has synced its merged log to a quorum (serves clients). */
    public boolean isActiveLeader() {
        return role instanceof LeaderRole leader && leader.isActive();
    }

    /** Every index up to here is known committed here. */
    public long commitPrefix() {
        return log.commitPrefix();
    }

    /** Every entry up to here is applied here. */
    public long appliedPrefix() {
        return log.appliedPrefix();
    }

    /** Whether entry {@code index} is known committed here. */
    public boolean isCommitted(long index) {
        return log.isCommitted(index);
    }

    /** Whether entry {@code index} is applied here. */
    public boolean isApplied(long index) {
        return log.isApplied(index);
    }

    /** The entry held at {@code index}, or null. */
    public LogEntry entry(long index) {
        return log.get(index);
    }

    /** The highest index held. */
    public long lastIndex() {
        return log.lastIndex();
    }

    /** The latest local checkpoint index. */
    public long checkpointIndex() {
        return log.checkpoint().meta().index();
    }

    /** This replica's clock. */
    public long now() {
        return now;
    }

    // ---------------------------------------------------------------- shared machinery for roles

    long term() {
        return currentTerm;
    }

    boolean voter() {
        return voter;
    }

    int randomElectionTimeout() {
        return config.electionTimeoutMin()
                + random.nextInt(config.electionTimeoutMax() - config.electionTimeoutMin() + 1);
    }

    void send(Message message) {
        effects.add(new Effect.Send(message));
    }

    void emit(Effect effect) {
        effects.add(effect);
    }

    /** Issues a disk write and runs {@code onDurable} once it (and all before it) completed. */
    long persist(LongFunction<DiskOp> make, Runnable onDurable) {
        long opId = nextOpId++;
        effects.add(new Effect.Persist(make.apply(opId)));
        pendingOps.add(new PendingOp(opId, onDurable));
        return opId;
    }

    void persistHardState(Runnable onDurable) {
        long term = currentTerm;
        int vote = votedFor;
        boolean isVoter = voter;
        persist(opId -> new DiskOp.PersistHardState(opId, term, vote, isVoter), onDurable);
    }

    /** Writes entries in one operation; {@code onDurable} gets those still held when it completes. */
    void writeEntries(List<LogEntry> entries, DurableEntries onDurable) {
        if (entries.isEmpty()) {
            return;
        }
        long[] opIdHolder = new long[1];
        opIdHolder[0] = persist(opId -> new DiskOp.PersistEntries(opId, entries), () -> {
            List<LogEntry> durable = new ArrayList<>();
            for (LogEntry e : entries) {
                if (log.markDurable(e, opIdHolder[0])) {
                    durable.add(e);
                }
            }
            onDurable.durable(durable);
        });
        for (LogEntry e : entries) {
            log.put(e, opIdHolder[0]);
        }
    }

    /** Callback for {@link #writeEntries}. */
    interface DurableEntries {
        void durable(List<LogEntry> entries);
    }

    /** Replaces the log above {@code base} with a merged log; {@code onDurable} runs when durable. */
    void writeSync(long base, long syncEnd, List<LogEntry> merged, Runnable onDurable) {
        long term = currentTerm;
        long[] opIdHolder = new long[1];
        opIdHolder[0] = persist(id -> new DiskOp.PersistSync(id, term, base, syncEnd, merged), () -> {
            log.markSyncDurable(opIdHolder[0]);
            onDurable.run();
        });
        log.replaceAbove(base, term, syncEnd, merged, opIdHolder[0]);
    }

    /** Adopts {@code newTerm} if higher and becomes a follower of {@code leader} (-1 if unknown). */
    void stepDown(long newTerm, int leader) {
        boolean termChanged = newTerm > currentTerm;
        if (termChanged) {
            currentTerm = newTerm;
            votedFor = PersistentState.NO_VOTE;
            persistHardState(() -> { });
        }
        if (!(role instanceof FollowerRole)) {
            become(new FollowerRole(this));
        } else if (termChanged) {
            emit(new Effect.RoleChanged(Role.FOLLOWER, currentTerm));
        }
        leaderId = leader;
    }

    void become(RoleState next) {
        role.onExit();
        role = next;
        emit(new Effect.RoleChanged(next.role(), currentTerm));
    }

    /** Starts an election in the next term (voters only). */
    void startElection(boolean leaderTransfer) {
        if (!voter) {
            return;
        }
        currentTerm++;
        votedFor = id;
        leaderId = -1;
        become(new CandidateRole(this, leaderTransfer));
    }

    void becomeLeader(MergeResult merge) {
        leaderId = id;
        become(new LeaderRole(this, merge));
    }

    /** Records contact from the leader of the current term. */
    void leaderContact(int leader) {
        leaderId = leader;
        lastLeaderContact = now;
    }

    boolean heardFromLeaderRecently() {
        return now - lastLeaderContact < config.electionTimeoutMin();
    }

    void promoteToVoter(int leader) {
        voter = true;
        votedFor = leader;
    }

    int leaderHint() {
        return leaderId;
    }

    RoleState roleState() {
        return role;
    }

    // ---------------------------------------------------------------- votes

    private void onRequestVote(RequestVote request) {
        boolean sticky = !request.leaderTransfer()
                && (role instanceof LeaderRole || (leaderId != -1 && heardFromLeaderRecently())
                || now < config.electionTimeoutMin());
        if (request.term() < currentTerm || !voter || sticky) {
            send(voteReply(request, false));
            return;
        }
        if (request.term() > currentTerm) {
            stepDown(request.term(), -1);
        }
        if (votedFor != PersistentState.NO_VOTE && votedFor != request.from()) {
            send(voteReply(request, false));
            return;
        }
        if (!candidateLogIsCurrent(request)) {
            send(voteReply(request, false));
            return;
        }
        votedFor = request.from();
        role.onVoteGranted();
        persistHardState(() -> send(voteReply(request, true)));
    }

    private boolean candidateLogIsCurrent(RequestVote request) {
        if (request.syncedTerm() != log.syncedTerm()) {
            return request.syncedTerm() > log.syncedTerm();
        }
        return request.lastIndex() >= log.lastIndex();
    }

    private VoteReply voteReply(RequestVote request, boolean granted) {
        List<LogEntry> entries = List.of();
        if (granted && (config.unsafePaperMerge() || request.syncedTerm() == log.syncedTerm())) {
            entries = log.range(request.contiguousIndex(), Long.MAX_VALUE);
        }
        return new VoteReply(id, request.from(), currentTerm, granted, voter, log.syncedTerm(), log.logStart(),
                entries);
    }

    // ---------------------------------------------------------------- apply and checkpoints

    private void afterInput() {
        applyCommitted();
        role.afterApply();
        maybeCheckpoint();
    }

    private void applyCommitted() {
        log.takeApplicable(config.applyWindow(), new ReplicaLog.ApplyListener() {
            @Override
            public void applied(LogEntry entry) {
                onApplied(entry);
            }

            @Override
            public void prefixPassed(LogEntry entry) {
                if (!entry.isNoop()) {
                    sessions.onPrefixPassed(entry.command());
                }
            }
        });
    }

    private void onApplied(LogEntry entry) {
        if (entry.isNoop()) {
            return;
        }
        WriteCommand command = entry.command();
        if (sessions.isDuplicate(command.clientId(), command.sequence())) {
            role.onApplied(entry);
            return;
        }
        sessions.recordApplied(command);
        emit(new Effect.Apply(entry));
        role.onApplied(entry);
    }

    private void maybeCheckpoint() {
        long applied = log.appliedPrefix();
        if (capturing || applied - log.checkpoint().meta().index() < config.checkpointInterval()) {
            return;
        }
        capturing = true;
        emit(new Effect.CaptureCheckpoint(new CheckpointMeta(applied, log.appliedAboveList(), sessions.snapshot())));
    }

    /** Replaces the applied state with an installed checkpoint; the host gets the image. */
    void installCheckpoint(Checkpoint checkpoint, Runnable onDurable) {
        log.installCheckpoint(checkpoint);
        sessions.restore(checkpoint.meta().sessions());
        emit(new Effect.RestoreCheckpoint(checkpoint));
        long compactTo = checkpoint.meta().index();
        persist(opId -> new DiskOp.SaveCheckpoint(opId, checkpoint, compactTo), onDurable);
    }

    @Override
    public String toString() {
        return "Replica{" + id + " " + role.role() + " term=" + currentTerm + " last=" + log.lastIndex()
                + " commit=" + log.commitPrefix() + " applied=" + log.appliedPrefix() + "}";
    }
}
