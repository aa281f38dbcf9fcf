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
 * reads are linearizable; membership changes take one member at a time and every entry commits
 * under exactly one configuration (see {@link #proposeMembership(List)}).
 */
public final class Replica {

    final ReplicationConfig config;
    final int id;
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
    /** Payload bytes applied since the last checkpoint capture began (not persisted: a restart starts over). */
    private long bytesSinceCapture;

    private record PendingOp(long id, Runnable onDurable) {
    }

    /**
     * Creates a replica from its durable state. After a restart the host must also restore its
     * block state from {@code state.checkpoint()} before delivering inputs.
     *
     * <p>The members in force come from the configuration entries in {@code state}'s log, else
     * from its checkpoint, else from {@code foundingMembers}: the host keeps the member list the
     * group was created with and passes it on every restart. A replica created to join a group
     * (see {@link #joining}) has no founding members: it learns them from the leader.
     *
     * @param config          the group's settings
     * @param id              this replica's id
     * @param foundingMembers ids of the replicas the group was created with
     * @param state           what survived on disk
     * @param seed            seed for the election timeouts
     */
    public Replica(ReplicationConfig config, int id, List<Integer> foundingMembers, PersistentState state,
                   long seed) {
        this.config = Objects.requireNonNull(config, "config");
        this.id = id;
        this.log = new ReplicaLog(state, foundingMembers);
        if (state.voter() && state.currentTerm() == 0 && !foundingMembers.contains(id)) {
            throw new IllegalArgumentException("replica " + id + " is not a member of " + foundingMembers
                    + "; a replica joining a group is created with Replica.joining");
        }
        this.sessions.restore(state.checkpoint().meta().sessions());
        this.random = new SplittableRandom(seed);
        this.currentTerm = state.currentTerm();
        this.votedFor = state.votedFor();
        this.voter = state.voter();
        this.role = new FollowerRole(this);
    }

    /**
     * Creates a brand-new replica with an empty disk that joins an existing group. It is a
     * non-voter that knows no members: it follows whichever leader contacts it, receives the
     * group's data through {@link Message.InstallCheckpoint} and the log, and becomes a voter once
     * the leader promotes it. The leader starts contacting it once the host asked it to
     * {@link #addMember(int) add} this id.
     *
     * @param config the group's settings
     * @param id     the new member's id, never used before in this group
     * @param seed   seed for the election timeouts
     */
    public static Replica joining(ReplicationConfig config, int id, long seed) {
        return new Replica(config, id, List.of(), PersistentState.wiped(), seed);
    }

    // ---------------------------------------------------------------- inputs

    /** Advances this replica's clock by one tick. */
    public void tick() {
        now++;
        role.onTick();
        afterInput();
    }

    /**
     * Handles a message from another replica. Senders outside this replica's configuration are not
     * ignored: a joining replica knows no members until the leader that added it contacts it, and,
     * as in Raft, a voter lagging on the configuration must still be able to vote for a member it
     * does not know yet (a candidate counts only votes from its own members).
     */
    public void handle(Message message) {
        if (message.to() != id || message.from() == id) {
            return;
        }
        if (message instanceof RequestVote request) {
            onRequestVote(request);
        } else if (message instanceof Message.PreVote request) {
            onPreVote(request);
        } else if (message instanceof Message.PreVoteReply reply) {
            // A grant comes from a voter in an older term; only a refusal can carry a newer one.
            if (reply.term() > currentTerm) {
                stepDown(reply.term(), -1);
            } else {
                role.onMessage(reply);
            }
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

    /**
     * The host could not deliver {@code message}, which this replica sent (the connection to its
     * addressee failed or refused it). Only {@link ReplicationConfig#reliableLinks() reliable links}
     * need to say so; a leader then resends what the message carried on its next tick, with the
     * usual back-off, instead of at the longest resend wait.
     */
    public void onSendFailed(Message message) {
        if (message.from() != id || message.to() == id) {
            return;
        }
        role.onSendFailed(message);
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
        if (role instanceof FollowerRole && voter && inConfiguration() && leaderId == -1 && currentTerm == 0) {
            startElection(true);
        }
        afterInput();
    }

    /**
     * Asks the leader to change the group's members to {@code newMembers}, which must differ from
     * {@link #members()} by exactly one id (single-member change). The leader proposes the change
     * once every entry it holds is committed and the previous change is committed; meanwhile, and
     * until the change commits, it refuses new writes with {@link Status#BUSY}. A new member joins
     * as a non-voter (create it with {@link #joining}) and is promoted once caught up. A leader
     * that removes itself hands leadership to a remaining member once the change commits.
     *
     * <p>Every replica emits {@link Effect.MembershipChanged} when it applies the change. If
     * leadership is lost first, the change may or may not take effect: the host watches
     * {@link #members()} or the effect and asks again.
     *
     * @param newMembers the complete new member list
     * @return {@link Status#OK} if accepted; {@link Status#NOT_LEADER} (or
     *     {@link Status#LEADER_NOT_READY}) if this replica cannot propose it now;
     *     {@link Status#BUSY} while another change is pending or uncommitted, or while the members
     *     of the new configuration that are live voters (heard from within the minimum election
     *     timeout) are not a majority of it: remove a dead member before adding its replacement,
     *     and let a new member be promoted before the next change
     * @throws IllegalArgumentException if {@code newMembers} is not a single-member change
     */
    public Status proposeMembership(List<Integer> newMembers) {
        List<Integer> target = newMembers.stream().distinct().sorted().toList();
        List<Integer> current = members();
        long added = target.stream().filter(m -> !current.contains(m)).count();
        long removed = current.stream().filter(m -> !target.contains(m)).count();
        if (target.isEmpty() || added + removed != 1) {
            throw new IllegalArgumentException("not a single-member change: " + current + " -> " + target);
        }
        Status status = role.onMembershipChange(target);
        afterInput();
        return status;
    }

    /** Proposes adding {@code member}; see {@link #proposeMembership(List)}. */
    public Status addMember(int member) {
        List<Integer> target = new ArrayList<>(members());
        target.add(member);
        return proposeMembership(target);
    }

    /** Proposes removing {@code member} (possibly this leader); see {@link #proposeMembership(List)}. */
    public Status removeMember(int member) {
        List<Integer> target = new ArrayList<>(members());
        target.remove(Integer.valueOf(member));
        return proposeMembership(target);
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
        long compactTo = compactTo(meta.index());
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

    /**
     * The group's members as this replica's log defines them now, ascending. A configuration entry
     * takes effect as soon as it is held, before it commits (a merge may still drop an uncommitted
     * one); quorums are majorities of this list, counting only members that are voters.
     */
    public List<Integer> members() {
        return log.members();
    }

    /** Whether this replica counts in quorums. */
    public boolean isVoter() {
        return voter;
    }

    /** Whether this replica leads and has synced its merged log to a quorum (serves clients). */
    /**
     * At an active leader, the members it knows to vote and to hold its log, ascending (see the
     * leader's accounting of each follower's answers); empty at any other replica. A host reports
     * a membership change as done only once every member of the new configuration is among them.
     */
    public List<Integer> confirmedVoters() {
        return role instanceof LeaderRole leader && leader.isActive() ? leader.confirmedVoters() : List.of();
    }

    public boolean isActiveLeader() {
        return role instanceof LeaderRole leader && leader.isActive();
    }

    /**
     * Whether a new write submitted now would be proposed rather than refused: this replica is an
     * active leader, not handing leadership over, with room in its window, no membership change
     * under way and no live voter about to fall off its log. A host that holds writes refused with
     * {@link Status#BUSY} proposes them again once this holds: what cleared the refusal (a lagging
     * voter catching up) need not move the commit prefix.
     */
    public boolean admitsWrites() {
        return role instanceof LeaderRole leader && leader.admitsWrites();
    }

    /**
     * Why this leader would refuse a new write with {@link Status#BUSY} now, in words a host can put
     * in its error (a full window, a membership change, a lagging voter it waits for); null when
     * it would not, or when this replica does not lead.
     */
    public String busyReason() {
        return role instanceof LeaderRole leader ? leader.busyReason() : null;
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

    /** Whether this replica is one of the members its log defines. */
    boolean inConfiguration() {
        return log.members().contains(id);
    }

    /** Votes or acknowledgments needed: a majority of the current members. */
    int quorum() {
        return log.members().size() / 2 + 1;
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

    /**
     * The election timer of a follower or candidate ran out: with {@link ReplicationConfig#preVote()}
     * a pre-vote round in the current term (as a follower), otherwise an election in the next term.
     */
    void electionTimedOut() {
        if (!voter || !inConfiguration()) {
            return;
        }
        if (!config.preVote()) {
            startElection(false);
            return;
        }
        if (!(role instanceof FollowerRole)) {
            leaderId = -1;
            become(new FollowerRole(this));
        }
        ((FollowerRole) role).startPreVote();
    }

    /** Starts an election in the next term (voters only). */
    void startElection(boolean leaderTransfer) {
        if (!voter || !inConfiguration()) {
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

    /**
     * Whether this replica refuses to help depose its leader: it leads, it heard from the leader
     * within the minimum election timeout, or it started less than that ago.
     */
    private boolean stickyToLeader() {
        return role instanceof LeaderRole || (leaderId != -1 && heardFromLeaderRecently())
                || now < config.electionTimeoutMin();
    }

    /** Answers a pre-vote: what {@link #onRequestVote} would say, without changing any state. */
    private void onPreVote(Message.PreVote request) {
        boolean granted = voter && request.term() > currentTerm && !stickyToLeader()
                && candidateLogIsCurrent(request.syncedTerm(), request.lastIndex(), request.contiguousIndex());
        send(new Message.PreVoteReply(id, request.from(), currentTerm, request.term(), granted));
    }

    private void onRequestVote(RequestVote request) {
        boolean sticky = !request.leaderTransfer() && stickyToLeader();
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
        if (!candidateLogIsCurrent(request.syncedTerm(), request.lastIndex(), request.contiguousIndex())) {
            send(voteReply(request, false));
            return;
        }
        votedFor = request.from();
        role.onVoteGranted();
        persistHardState(() -> send(voteReply(request, true)));
    }

    /**
     * The candidate's synced term decides (safety rests on it: see the merge). On equal synced terms
     * the voter's entries above the candidate's contiguous index reach it in the vote reply, so
     * either a longer log or a longer contiguous prefix qualifies. The second keeps electable a
     * candidate whose prefix came from a checkpoint: voters that compacted past another replica's
     * holes cannot feed that replica's merge, so if the one with holes also held the longest log,
     * neither could ever win.
     */
    private boolean candidateLogIsCurrent(long syncedTerm, long lastIndex, long contiguousIndex) {
        if (syncedTerm != log.syncedTerm()) {
            return syncedTerm > log.syncedTerm();
        }
        return lastIndex >= log.lastIndex() || contiguousIndex >= log.contiguousIndex();
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
        if (entry.isConfiguration()) {
            emit(new Effect.MembershipChanged(entry.members(), entry.index()));
            role.onApplied(entry);
            return;
        }
        if (entry.isNoop()) {
            return;
        }
        WriteCommand command = entry.command();
        if (sessions.isDuplicate(command.clientId(), command.sequence())) {
            role.onApplied(entry);
            return;
        }
        sessions.recordApplied(command);
        bytesSinceCapture += command.payload().length();
        emit(new Effect.Apply(entry));
        role.onApplied(entry);
    }

    private void maybeCheckpoint() {
        long applied = log.appliedPrefix();
        long sinceCheckpoint = applied - log.checkpoint().meta().index();
        if (capturing || sinceCheckpoint <= 0 || sinceCheckpoint < config.checkpointInterval()
                && bytesSinceCapture < config.checkpointBytes()) {
            return;
        }
        capturing = true;
        bytesSinceCapture = 0;
        emit(new Effect.CaptureCheckpoint(new CheckpointMeta(applied, log.appliedAboveList(), sessions.snapshot(),
                log.membersAt(applied))));
    }

    /**
     * Where a checkpoint at {@code index} cuts the log: {@code window} entries below it (so a new
     * entry's look-behind can always be filled), or lower, down to where the previous checkpoint cut
     * it, while a member the leader heard from lately still needs older entries. A follower that
     * lags by more than the window (a slow disk, a burst of large writes) then catches up from the
     * log instead of a whole image of the region, and the log held never grows beyond two
     * checkpoint intervals.
     */
    private long compactTo(long index) {
        long compactTo = Math.max(0, index - config.window());
        long needed = role.neededFrom();
        if (needed - 1 < compactTo) {
            long previous = Math.max(0, log.checkpoint().meta().index() - config.window());
            compactTo = Math.max(previous, needed - 1);
        }
        return compactTo;
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
