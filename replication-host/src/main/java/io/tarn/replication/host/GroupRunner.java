package io.tarn.replication.host;

import io.netty.util.concurrent.EventExecutor;
import io.tarn.replication.BlockRange;
import io.tarn.replication.ClientRead;
import io.tarn.replication.ClientReply;
import io.tarn.replication.ClientWrite;
import io.tarn.replication.Effect;
import io.tarn.replication.Message;
import io.tarn.replication.Replica;
import io.tarn.replication.ReplicationConfig;
import io.tarn.replication.Role;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs one replica of one block group on one event-loop thread: the host side of the pure
 * {@link Replica}. Every input (a peer's message, a client's write or read, a journal completion,
 * the clock) is handed to the loop and fed to the replica there; the effects it returns are
 * performed at once, in order: messages and journal writes go to {@link GroupOutputs}, committed
 * entries to the {@link GroupStore}, replies complete the callers' futures.
 *
 * <p><b>Time.</b> One tick is {@code tickNanos} of {@link System#nanoTime()}. Before any input the
 * runner first delivers the ticks that elapsed since the last one, so a process that was paused
 * (SIGSTOP, a long GC) sees its lease expire before it answers anything, as the core requires. A
 * gap longer than an election timeout plus a lease is delivered as exactly that many ticks: more
 * would change nothing but the number of heartbeats sent at once.
 *
 * <p><b>Never hang.</b> A write or read that the replica has not answered within its timeout (a
 * leader that lost its quorum keeps entries uncommitted forever) completes with
 * {@link Outcome#unavailable} naming the group and the members not heard from within an election
 * timeout. Its entry may still commit later; a retry with the same sequence is applied at most once.
 *
 * <p><b>Failures.</b> A send that fails is dropped (the protocol resends) and the effects after it
 * are still performed. Any other effect that throws (applying an entry to the store, restoring or
 * capturing a checkpoint, handing an op to the journal, answering a client) <i>stops</i> the group
 * on this datanode: its block state may no longer be what its core believes, so it must neither
 * acknowledge, vote nor serve again. Its pending requests fail at once with the cause, later ones
 * too, it stops ticking and sending, one ERROR names the group and the cause, and
 * {@link #failure()} gives the reason (it is then no longer reported as leading). A journal failure
 * ({@link #journalFailed}) stops it the same way. The other members keep the group available, like
 * after a crash of this one; restarting the datanode hosts it again from its journal.
 *
 * <p><b>Observation.</b> {@link #role()}, {@link #term()}, {@link #leaderId()} and {@link #leads()}
 * may be read from any thread: volatile copies the loop refreshes after every input.
 *
 * <p>Thread-safety: the public input methods and the observers may be called from any thread;
 * everything else runs on {@code loop}.
 */
public final class GroupRunner {
    private static final Logger LOG = LoggerFactory.getLogger(GroupRunner.class);

    /** What hosts the group, as messages name it. */
    private final String process;
    /** The group as log lines name it: "Block group 7", or "Namespace group of partition 0" on a namenode. */
    private final String groupName;

    /**
     * The answer to a client request.
     *
     * @param status      the replica's answer, or null when the request timed out
     * @param leaderHint  the member believed to lead, or -1
     * @param data        the bytes read (reads answered OK only), else null
     * @param unavailable why the request timed out (status null) or why no leader can take it
     *                    (a non-OK status without a leader hint: the group has no quorum here), else null
     */
    public record Outcome(Status status, int leaderHint, byte[] data, String unavailable) {
        static Outcome timedOut(String why) {
            return new Outcome(null, -1, null, why);
        }

        /** Whether the write was applied, or the read served. */
        public boolean ok() {
            return status == Status.OK;
        }
    }

    /**
     * The answer to {@link #readIndex}.
     *
     * @param index   every write this group acknowledged before the request lies at or below it; -1
     *                when this member could not confirm that it leads
     * @param refusal why not (with a leader hint when known), when {@code index} is -1
     */
    public record ReadIndex(long index, Outcome refusal) {
    }

    record WriteKey(long clientId, long sequence) {
    }

    /** The client id of read-index confirmations (reads are not sessions: any id serves). */
    private static final long READ_INDEX_CLIENT = 0;
    private static final BlockRange NOTHING = new BlockRange(0, 0);
    private static final Outcome APPLIED = new Outcome(Status.OK, -1, null, null);
    /** "Up to now" for {@link #catchUp(long)}. */
    private static final long NOW = Long.MIN_VALUE;
    /** Ticks between two refreshes of {@link #settledMembers}: leader reports go out every heartbeat. */
    private static final int SETTLE_EVERY_TICKS = 10;

    private record Waiting(long deadline, WriteKey write, long readId, CompletableFuture<Outcome> future) {
    }

    private final long groupId;
    private final Replica replica;
    private final EventExecutor loop;
    private final GroupOutputs outputs;
    private final GroupStore store;
    private Map<Integer, String> memberNames;
    private final long tickNanos;
    private final long requestTimeoutNanos;
    private final int maxCatchUpTicks;
    private final int silenceTicks;
    private final Map<WriteKey, List<CompletableFuture<Outcome>>> writes = new HashMap<>();
    private final Map<Long, CompletableFuture<Outcome>> reads = new HashMap<>();
    private final ArrayDeque<Waiting> deadlines = new ArrayDeque<>();
    /** Callers waiting for the applied prefix to reach an index, by index (loop thread only). */
    private final TreeMap<Long, List<CompletableFuture<Outcome>>> appliedWaits = new TreeMap<>();
    /** When each other member's last message arrived (System.nanoTime); written on the loop, read by status. */
    private final Map<Integer, Long> lastHeard = new ConcurrentHashMap<>();
    /** Members other than this one, and when each last sent a message of this replica's current term. */
    private int[] peers;
    private long[] heardAt;
    private long[] heardTerm;
    /** Scratch for {@link #quorumHeardAt} (loop thread only). */
    private long[] heardScratch;
    private final long leaseNanos;
    private long nextReadId = 1;
    private long lastTick;
    private boolean closed;
    /** Messages that could not be sent (loop thread only). */
    private long droppedSends;
    /**
     * Writes the leader refused for a full window ({@code BUSY}), held here in arrival order and
     * proposed again once the group made progress, instead of bouncing each back to its client to
     * retry, and the line of writes bounced when there was no room (loop thread only).
     */
    private final HeldWrites held;
    /** The write being handed to the replica in this step, so that a BUSY answer can hold it. */
    private WriteCommand submitting;
    /** Whether {@link #submitting} comes from {@link #held} (held again at the front if refused again). */
    private boolean resubmitting;
    /** Set when the answer to {@link #submitting} was BUSY and it was held. */
    private boolean heldAgain;
    /** Set when the answer to {@link #submitting} was BUSY and it went back to its client. */
    private boolean bounced;
    /** Commit prefix and term when the held writes were last proposed: new ones are proposed on a change. */
    private long heldAtCommit = -1;
    private long heldAtTerm = -1;
    /** Why the group was stopped here (an effect or its journal failed), or null (written on the loop). */
    private volatile String stopped;
    /** True while an input is fed and its effects performed (loop thread only). */
    private boolean busy;

    /** The replica's configuration as last observed (loop thread only). */
    private List<Integer> configuration;
    /** The configuration last applied (committed), loop thread only. */
    private List<Integer> applied;
    /** At an active leader: the applied members known to vote and hold its log; else empty. */
    private volatile List<Integer> settled = List.of();
    /** Timer firings until {@link #settled} is refreshed next (loop thread only). */
    private int settleCountdown;

    // Copies for other threads, refreshed on the loop after every input (observe()).
    private volatile Role role = Role.FOLLOWER;
    private volatile long term;
    private volatile int leaderId = -1;
    /** Whether the replica is an active leader (synced its log to a quorum). */
    private volatile boolean activeLeader;
    /** Until when ({@link System#nanoTime()}) a quorum confirmed this leader's term. */
    private volatile long confirmedUntil;
    /** Told of leadership changes ({@link #onLeadershipChange}), or null. */
    private volatile Runnable leadershipListener;
    /** What the listener was last told about (loop thread only). */
    private Role seenRole;
    private long seenTerm = -1;
    private int seenLeader = -2;
    private boolean seenLeads;

    /**
     * @param groupId         the group's id (for messages and errors)
     * @param replica         this member's replica, fresh or rebuilt from its journal
     * @param memberNames     every member's id and a name for messages ("datanode 3 (host:port)")
     * @param loop            the thread that owns the replica
     * @param outputs         peers and journal
     * @param store           the group's block state on this datanode
     * @param config          the replica's settings (for the catch-up cap)
     * @param tickNanos       length of one tick
     * @param requestTimeoutNanos how long a client request may wait for the replica's answer
     * @param heldBudget      the process's room for writes held while windows are full
     * @param process         what hosts the group, as messages name it ("datanode", "namenode")
     */
    public GroupRunner(long groupId, Replica replica, Map<Integer, String> memberNames, EventExecutor loop,
                       GroupOutputs outputs, GroupStore store, ReplicationConfig config, long tickNanos,
                       long requestTimeoutNanos, HeldWrites.Budget heldBudget, String process) {
        this.process = process;
        this.groupName = ("namenode".equals(process) ? "Namespace group of partition " : "Block group ") + groupId;
        this.groupId = groupId;
        this.replica = replica;
        this.memberNames = Map.copyOf(memberNames);
        this.loop = loop;
        this.outputs = outputs;
        this.store = store;
        this.tickNanos = tickNanos;
        this.requestTimeoutNanos = requestTimeoutNanos;
        this.maxCatchUpTicks = config.electionTimeoutMax() + config.leaseTicks();
        this.silenceTicks = 3 * config.heartbeatTicks();
        this.held = new HeldWrites(heldBudget);
        this.lastTick = System.nanoTime();
        this.leaseNanos = config.leaseTicks() * tickNanos;
        long now = lastTick;
        for (int member : memberNames.keySet()) {
            lastHeard.put(member, now);
        }
        this.configuration = replica.members();
        this.applied = configuration;
        this.peers = new int[0];
        this.heardAt = new long[0];
        this.heardTerm = new long[0];
        this.heardScratch = new long[0];
        configure(configuration);
        observe();
    }

    /**
     * The replica's configuration changed (it holds a configuration entry, or a checkpoint or merge
     * changed it): the lease quorum counts its members from now on, keeping what was heard from
     * the ones that stay.
     */
    private void configure(List<Integer> members) {
        int[] next = members.stream().mapToInt(Integer::intValue).filter(m -> m != replica.id()).sorted().toArray();
        long[] at = new long[next.length];
        long[] terms = new long[next.length];
        Arrays.fill(terms, -1);
        for (int i = 0; i < next.length; i++) {
            for (int j = 0; j < peers.length; j++) {
                if (peers[j] == next[i]) {
                    at[i] = heardAt[j];
                    terms[i] = heardTerm[j];
                }
            }
        }
        peers = next;
        heardAt = at;
        heardTerm = terms;
        heardScratch = new long[next.length];
    }

    /** The group's id. */
    public long groupId() {
        return groupId;
    }

    /** The loop thread that owns this group. */
    public EventExecutor loop() {
        return loop;
    }

    // ---------------------------------------------------------------- observation, from any thread

    /** The replica's role after its last input. */
    public Role role() {
        return role;
    }

    /** The replica's current term after its last input. */
    public long term() {
        return term;
    }

    /**
     * At an active leader, the members of the applied configuration that it knows to vote and to
     * hold its log (a new member only once it caught up and was promoted), ascending; empty
     * elsewhere. What a leader reports to the namenode: a replacement is done when these are the
     * target's members. Refreshed every few milliseconds.
     */
    public List<Integer> settledMembers() {
        return settled;
    }

    /**
     * How long ago (ms) the last message of each other member arrived here, by member id; members
     * never heard from are missing. Any thread (for status).
     */
    public Map<Integer, Long> heardAgoMs() {
        long now = System.nanoTime();
        Map<Integer, Long> out = new HashMap<>();
        lastHeard.forEach((m, at) -> out.put(m, Math.max(0, TimeUnit.NANOSECONDS.toMillis(now - at))));
        return out;
    }

    /** How long a member may stay silent before it counts as unreachable (three heartbeats), in ms. */
    public long silenceMs() {
        return TimeUnit.NANOSECONDS.toMillis(silenceTicks * tickNanos);
    }

    /** The leader the replica believed in after its last input, or -1. */
    public int leaderId() {
        return leaderId;
    }

    /**
     * Whether this member leads the group as far as it can tell now: its replica is an active leader
     * (it synced its log to a quorum), a quorum of members (this one included) sent it messages of
     * its term within the last lease ({@code leaseTicks}), and the group is healthy here (neither
     * stopped nor with a failed journal). This is the condition under which the replica serves a
     * read at once; a leader cut off from its quorum stops reporting it within a lease.
     */
    public boolean leads() {
        return activeLeader && stopped == null && System.nanoTime() - confirmedUntil < 0;
    }

    /**
     * Why this member no longer serves the group here (an effect failed and the group was stopped,
     * or its journal failed), or null while it is healthy.
     */
    public String failure() {
        return stopped;
    }

    // ---------------------------------------------------------------- inputs, from any thread

    /**
     * Delivers a message from another member. The replica first gets the ticks that elapsed up to the
     * message's arrival here, not up to when the loop gets to it: after the loop stalled (a long GC
     * pause, a starved thread) the heartbeats that waited in its queue are handled in time order
     * before the election timer, which would otherwise fire on the whole stall at once and depose a
     * leader that never stopped sending. Contact is dated by arrival too (earlier, so a lease
     * counted from it is never longer). Client requests and the timer still get every elapsed tick
     * first, so a paused leader's lease has run out before it answers anyone.
     */
    public void deliver(Message message) {
        long arrived = System.nanoTime();
        run(() -> {
            lastHeard.put(message.from(), arrived);
            replica.handle(message);
            if (message.term() == replica.currentTerm()) {
                heard(message.from(), message.term(), arrived);
            }
        }, null, arrived);
    }

    /**
     * A message this replica sent did not reach its addressee's replica (see
     * {@link PeerMessenger#send}): a leader resends what it carried.
     */
    public void undelivered(Message message) {
        run(() -> replica.onSendFailed(message));
    }

    /** The journal completed every operation up to {@code opId}. */
    public void durable(long opId) {
        run(() -> replica.onDiskComplete(opId));
    }

    /**
     * The group's journal failed (full or read-only disk, its writer thread died): nothing more
     * becomes durable here, so the group stops on this datanode (the journal logged why). Every
     * pending and later request is answered at once with {@code reason}, instead of timing out, and
     * the replica no longer ticks nor sends: a leader that went on sending heartbeats without being
     * able to acknowledge anything would keep the others from electing one that can.
     */
    public void journalFailed(String reason) {
        run(() -> halt("group " + groupId + " cannot acknowledge writes on this " + process + ": " + reason));
    }

    /** Names this member the first leader of a brand-new group (see {@link Replica#campaign()}). */
    public void campaign() {
        run(replica::campaign);
    }

    /**
     * Proposes one step from the replica's configuration towards {@code target} (removing a member
     * not in it first, else adding one), as the namenode's replacement of a member asks; the
     * answer is the core's ({@code BUSY} while an earlier change commits or the liveness guard
     * refuses, {@code NOT_LEADER} at a follower), or OK when the configuration is the target
     * already. Names of members not known before are learnt for messages.
     */
    public CompletableFuture<Status> moveTowards(List<Integer> target, Map<Integer, String> names) {
        CompletableFuture<Status> result = new CompletableFuture<>();
        CompletableFuture<Outcome> rejected = new CompletableFuture<>();
        rejected.thenAccept(o -> result.complete(Status.NOT_LEADER));
        run(() -> {
            Map<Integer, String> known = new HashMap<>(memberNames);
            names.forEach(known::putIfAbsent);
            memberNames = Map.copyOf(known);
            List<Integer> current = replica.members();
            Integer out = current.stream().filter(m -> !target.contains(m)).findFirst().orElse(null);
            Integer in = target.stream().filter(m -> !current.contains(m)).findFirst().orElse(null);
            try {
                if (out != null) {
                    result.complete(replica.removeMember(out));
                } else if (in != null) {
                    result.complete(replica.addMember(in));
                } else {
                    result.complete(Status.OK);
                }
            } catch (IllegalArgumentException e) {
                result.completeExceptionally(e);
            }
        }, rejected);
        return result;
    }

    /** Asks the leader to hand leadership to {@code member}. */
    public void transferLeadership(int member) {
        run(() -> replica.transferLeadership(member));
    }

    /**
     * Submits a client write; the future completes when the replica answers (OK once applied on
     * this leader) or the request times out.
     */
    public CompletableFuture<Outcome> write(WriteCommand command) {
        CompletableFuture<Outcome> future = new CompletableFuture<>();
        run(() -> {
            WriteKey key = new WriteKey(command.clientId(), command.sequence());
            writes.computeIfAbsent(key, k -> new ArrayList<>(1)).add(future);
            deadlines.add(new Waiting(System.nanoTime() + requestTimeoutNanos, key, 0, future));
            if (!held.isEmpty()) {
                proposeHeld(true); // the window may have room: the waiting writes go first
                if (!held.isEmpty() && held.tryAdd(command, System.nanoTime())) {
                    return; // behind the writes still waiting, in arrival order
                }
            }
            // Into the window if it has room; refused BUSY, it is held (answer) if it may be.
            submitting = command;
            resubmitting = false;
            heldAgain = false;
            bounced = false;
            replica.submitWrite(new ClientWrite(command));
            perform();
            if (!heldAgain && !bounced) {
                held.leaveLine(key);
            }
        }, future);
        return future;
    }

    /** Submits a linearizable read of {@code range}; the future carries the bytes when served. */
    public CompletableFuture<Outcome> read(long clientId, BlockRange range) {
        CompletableFuture<Outcome> future = new CompletableFuture<>();
        run(() -> {
            long readId = nextReadId++;
            reads.put(readId, future);
            deadlines.add(new Waiting(System.nanoTime() + requestTimeoutNanos, null, readId, future));
            replica.submitRead(new ClientRead(clientId, readId, range));
        }, future);
        return future;
    }

    /**
     * The read index of a read served by a follower: once this member confirms it leads (a
     * linearizable read of nothing, under its lease), the last index of its log as it was when the
     * request reached the loop. Every write acknowledged before then lies at or below it, so a
     * member that applied every entry up to it serves reads as fresh as this leader's.
     */
    public CompletableFuture<ReadIndex> readIndex() {
        CompletableFuture<ReadIndex> result = new CompletableFuture<>();
        CompletableFuture<Outcome> rejected = new CompletableFuture<>();
        rejected.thenAccept(o -> result.complete(new ReadIndex(-1, o)));
        run(() -> {
            long index = replica.lastIndex();
            read(READ_INDEX_CLIENT, NOTHING).whenComplete((o, e) -> result.complete(e != null
                    ? new ReadIndex(-1, Outcome.timedOut("group " + groupId + ": " + e))
                    : new ReadIndex(o.ok() ? index : -1, o)));
        }, rejected);
        return result;
    }

    /**
     * Completes with OK once this replica applied every entry up to {@code index}, or with a
     * timed-out outcome after the request timeout.
     */
    public CompletableFuture<Outcome> awaitApplied(long index) {
        CompletableFuture<Outcome> future = new CompletableFuture<>();
        run(() -> {
            if (replica.appliedPrefix() >= index) {
                future.complete(APPLIED);
                return;
            }
            appliedWaits.computeIfAbsent(index, k -> new ArrayList<>(1)).add(future);
            deadlines.add(new Waiting(System.nanoTime() + requestTimeoutNanos, null, 0, future));
        }, future);
        return future;
    }

    /** Delivers the ticks due now; the loop's ticker calls this on the loop thread. */
    public void onTimer() {
        if (!closed && stopped == null) {
            busy = true;
            try {
                catchUp();
                perform();
                if (stopped == null) {
                    proposeHeld();
                    outputs.onTimer(groupId);
                    expire();
                    observe();
                    if (--settleCountdown <= 0) {
                        settleCountdown = SETTLE_EVERY_TICKS;
                        settle();
                    }
                }
            } finally {
                busy = false;
            }
        }
    }

    /** Stops the group here: pending requests fail, later inputs are ignored. */
    public void close() {
        run(() -> {
            closed = true;
            failPending("group " + groupId + " is no longer served by this " + process);
        });
    }

    private void failPending(String why) {
        Outcome outcome = Outcome.timedOut(why);
        for (Waiting w : deadlines) {
            w.future().complete(outcome);
        }
        deadlines.clear();
        writes.clear();
        held.clear();
        appliedWaits.clear();
        reads.clear();
    }

    // ---------------------------------------------------------------- observation (loop thread, or tests)

    /** The replica, for observation on the loop thread. */
    public Replica replica() {
        return replica;
    }

    // ---------------------------------------------------------------- the loop

    private void run(Runnable input) {
        run(input, null);
    }

    private void run(Runnable input, CompletableFuture<Outcome> failOnReject) {
        run(input, failOnReject, NOW);
    }

    /** Runs {@code input} on the loop after the ticks due at {@code ticksUpTo} ({@link #NOW}: when it runs). */
    private void run(Runnable input, CompletableFuture<Outcome> failOnReject, long ticksUpTo) {
        Runnable task = () -> {
            if (closed || stopped != null) {
                if (failOnReject != null) {
                    failOnReject.complete(Outcome.timedOut(closed ? "group " + groupId + " is no longer served here"
                            : stopped));
                }
                return;
            }
            busy = true;
            try {
                catchUp(ticksUpTo);
                input.run();
                perform();
                submitting = null;
                if (stopped == null) {
                    proposeHeld();
                    observe();
                }
            } finally {
                submitting = null;
                busy = false;
            }
        };
        if (loop.inEventLoop() && !busy) {
            task.run();
        } else {
            // From another thread, or from an output called while effects are performed (a journal
            // that completes at once): after the current input, never inside it.
            try {
                loop.execute(task);
            } catch (RejectedExecutionException e) {
                // The loops stopped (the datanode is shutting down): nothing more happens to this group.
                if (failOnReject != null) {
                    failOnReject.complete(Outcome.timedOut("group " + groupId + " is shutting down on this "
                            + process));
                }
            }
        }
    }

    private void catchUp() {
        catchUp(NOW);
    }

    /** Delivers the ticks elapsed up to {@code upTo} (a {@link System#nanoTime} value, or {@link #NOW}). */
    private void catchUp(long upTo) {
        long now = System.nanoTime();
        if (upTo != NOW && upTo - now < 0) {
            now = upTo;
        }
        long due = (now - lastTick) / tickNanos;
        if (due <= 0) {
            return;
        }
        lastTick += due * tickNanos;
        long ticks = Math.min(due, maxCatchUpTicks);
        for (long i = 0; i < ticks; i++) {
            replica.tick();
        }
    }

    private void perform() {
        List<Effect> effects = replica.drainEffects();
        for (int i = 0; i < effects.size(); i++) {
            Effect effect = effects.get(i);
            if (effect instanceof Effect.Send send) {
                send(send);
                continue;
            }
            try {
                effects = perform(effects, i);
            } catch (RuntimeException | Error e) {
                stop(effect, e);
                return;
            }
        }
    }

    /** Performs effect {@code i}, other than a send; returns the effects, grown when it produced more. */
    private List<Effect> perform(List<Effect> effects, int i) {
        Effect effect = effects.get(i);
        if (effect instanceof Effect.Persist persist) {
            outputs.persist(groupId, persist.op());
        } else if (effect instanceof Effect.Apply apply) {
            store.apply(apply.entry());
        } else if (effect instanceof Effect.Reply reply) {
            answer(reply.reply());
        } else if (effect instanceof Effect.CaptureCheckpoint capture) {
            replica.onCheckpointCaptured(capture.meta(), store.capture(capture.meta()));
            return concat(effects, i, replica.drainEffects());
        } else if (effect instanceof Effect.RestoreCheckpoint restore) {
            store.restore(restore.checkpoint());
        } else if (effect instanceof Effect.RoleChanged changed) {
            logRoleChange(changed);
            outputs.roleChanged(groupId, changed.role(), changed.term(), replica.leaderId());
        } else if (effect instanceof Effect.MembershipChanged changed) {
            applied = List.copyOf(changed.members());
            LOG.info("{}: member {} applied the configuration {} (entry {})", groupName, replica.id(),
                    changed.members(), changed.index());
        }
        return effects;
    }

    /**
     * One line per change of leadership, as an operator reading the log after an incident wants
     * them: who stands for election and how long it had not heard from the leader it knew (or
     * from any member), who leads which term, and a leader stepping down. {@link #role} and
     * {@link #leaderId} still hold the values from before this input.
     */
    private void logRoleChange(Effect.RoleChanged changed) {
        if (changed.role() == Role.CANDIDATE) {
            int previous = leaderId;
            Long heard = previous >= 0 ? lastHeard.get(previous) : null;
            String since = previous < 0 ? "no leader known"
                    : heard == null ? "nothing ever heard from leader " + previous
                    : "nothing from leader " + previous + " for " + (System.nanoTime() - heard) / 1_000_000 + " ms";
            LOG.info("{}: member {} stands for election in term {} ({})", groupName, replica.id(),
                    changed.term(), since);
        } else if (changed.role() == Role.LEADER) {
            LOG.info("{}: member {} leads term {}", groupName, replica.id(), changed.term());
        } else if (role == Role.LEADER) {
            LOG.info("{}: member {} no longer leads, now in term {}", groupName, replica.id(),
                    changed.term());
        }
    }

    /**
     * Stops the group here after {@code effect} threw: the replica's block state (or journal) may no
     * longer be what its core believes, so it must not go on acknowledging, voting or serving.
     */
    private void stop(Effect effect, Throwable cause) {
        String why = "group " + groupId + " is stopped on this " + process + ": " + describe(effect) + " failed ("
                + cause + "); the other members keep it available, and restarting this " + process
                + " hosts it again from its journal";
        LOG.error("{}", why, cause);
        halt(why);
    }

    /** Stops the group here: no more ticks, inputs or effects; every request is answered with {@code why}. */
    private void halt(String why) {
        stopped = why;
        activeLeader = false;
        failPending(why);
    }

    private static String describe(Effect effect) {
        if (effect instanceof Effect.Apply apply) {
            return "applying entry " + apply.entry().index() + " (term " + apply.entry().term()
                    + ") to the block store";
        } else if (effect instanceof Effect.Persist persist) {
            return "handing " + persist.op().getClass().getSimpleName() + " op " + persist.op().id()
                    + " to the journal";
        } else if (effect instanceof Effect.CaptureCheckpoint capture) {
            return "capturing the checkpoint at index " + capture.meta().index();
        } else if (effect instanceof Effect.RestoreCheckpoint restore) {
            return "restoring the checkpoint at index " + restore.checkpoint().meta().index();
        } else if (effect instanceof Effect.Reply) {
            return "answering a client";
        }
        return "performing " + effect.getClass().getSimpleName();
    }

    /** Member {@code from} sent a message of term {@code term}, this replica's current term, at {@code now}. */
    private void heard(int from, long term, long now) {
        for (int i = 0; i < peers.length; i++) {
            if (peers[i] == from) {
                heardAt[i] = now;
                heardTerm[i] = term;
                return;
            }
        }
    }

    /**
     * When a quorum (this member and enough others) had last sent messages of the current term: the
     * oldest of the most recent messages from the fewest other members that make a majority with this one.
     */
    private long quorumHeardAt(long now) {
        int needed = (peers.length + 1) / 2;
        if (needed <= 0) {
            return now;
        }
        long current = replica.currentTerm();
        long stale = now - leaseNanos - 1;
        for (int i = 0; i < peers.length; i++) {
            heardScratch[i] = heardTerm[i] == current ? heardAt[i] : stale;
        }
        Arrays.sort(heardScratch);
        return heardScratch[peers.length - needed];
    }

    /** Refreshes the copies other threads read (loop thread, after an input and its effects). */
    private void observe() {
        List<Integer> members = replica.members();
        if (!members.equals(configuration)) {
            if (!members.equals(applied)) {
                // The configuration a member counts votes and acknowledgments in, before it commits:
                // what an operator needs to see when a change stalls.
                LOG.info("{}: member {} now uses the configuration {} (not applied yet; was {})",
                        groupName, replica.id(), members, configuration);
            }
            configuration = members;
            configure(members);
        }
        Role r = replica.role();
        if (r != role) {
            role = r;
        }
        long t = replica.currentTerm();
        if (t != term) {
            term = t;
        }
        int l = replica.leaderId();
        if (l != leaderId) {
            leaderId = l;
        }
        boolean active = r == Role.LEADER && replica.isActiveLeader();
        if (active) {
            long now = System.nanoTime();
            confirmedUntil = quorumHeardAt(now) + leaseNanos;
        }
        if (active != activeLeader) {
            activeLeader = active;
        }
        releaseAppliedWaits();
        Runnable listener = leadershipListener;
        if (listener != null) {
            boolean leadsNow = leads();
            if (r != seenRole || t != seenTerm || l != seenLeader || leadsNow != seenLeads) {
                seenRole = r;
                seenTerm = t;
                seenLeader = l;
                seenLeads = leadsNow;
                listener.run();
            }
        }
    }

    /**
     * Asks to be told, on the loop thread, after an input changed this member's role, term, the
     * leader it knows or whether it {@link #leads()}, so a host need not poll for a leadership
     * change. The listener must not block (hand the work to another thread). A lease that runs out
     * without an input is not reported: {@link #leads()} answers that at once.
     */
    public void onLeadershipChange(Runnable listener) {
        this.leadershipListener = listener;
    }

    /** Refreshes {@link #settledMembers} (loop thread). */
    private void settle() {
        if (!activeLeader) {
            if (!settled.isEmpty()) {
                settled = List.of();
            }
            return;
        }
        List<Integer> voters = replica.confirmedVoters();
        List<Integer> now = applied.stream().filter(voters::contains).toList();
        if (!now.equals(settled)) {
            settled = now;
        }
    }

    /** Completes the callers of {@link #awaitApplied} whose index the applied prefix reached. */
    private void releaseAppliedWaits() {
        if (!appliedWaits.isEmpty()) {
            long applied = replica.appliedPrefix();
            while (!appliedWaits.isEmpty() && appliedWaits.firstKey() <= applied) {
                appliedWaits.pollFirstEntry().getValue().forEach(f -> f.complete(APPLIED));
            }
        }
    }

    /**
     * Sends a message, dropping it if it cannot be made (no memory for a large checkpoint image,
     * an encoding failure): the protocol resends what matters, and the effects after it must still
     * be performed, or this replica's block state would no longer be what its core believes.
     */
    private void send(Effect.Send send) {
        try {
            outputs.send(groupId, send.message());
        } catch (RuntimeException | OutOfMemoryError e) {
            droppedSends++;
            if (droppedSends == 1 || Long.bitCount(droppedSends) == 1) {
                LOG.warn("group {}: could not send {} to member {} ({} dropped so far): {}", groupId,
                        send.message().getClass().getSimpleName(), send.message().to(), droppedSends, e.toString());
            }
        }
    }

    /** The effects after {@code done}, then {@code more}: a checkpoint capture produces effects of its own. */
    private static List<Effect> concat(List<Effect> effects, int done, List<Effect> more) {
        if (more.isEmpty()) {
            return effects;
        }
        List<Effect> joined = new ArrayList<>(effects.size() + more.size());
        joined.addAll(effects.subList(0, done + 1));
        joined.addAll(more);
        joined.addAll(effects.subList(done + 1, effects.size()));
        return joined;
    }

    /**
     * Proposes the held writes again, oldest first, once the group committed more or changed term
     * since the last refusal, or the replica admits writes again (a lagging voter it waited for
     * caught up, which moves no commit prefix when the others had committed everything); stops at
     * the first one refused again (it stays first). A write whose callers are gone (timed out, or
     * answered by an earlier copy) is dropped.
     */
    private void proposeHeld() {
        proposeHeld(false);
    }

    /** As {@link #proposeHeld()}; with {@code always}, even without progress since the last refusal. */
    private void proposeHeld(boolean always) {
        if (held.isEmpty() || !always && replica.commitPrefix() == heldAtCommit
                && replica.currentTerm() == heldAtTerm && !replica.admitsWrites()) {
            return;
        }
        while (!held.isEmpty() && stopped == null) {
            WriteCommand c = held.takeFirst();
            if (!writes.containsKey(new WriteKey(c.clientId(), c.sequence()))) {
                held.done(c);
                continue;
            }
            submitting = c;
            resubmitting = true;
            heldAgain = false;
            replica.submitWrite(new ClientWrite(c));
            perform();
            submitting = null;
            resubmitting = false;
            if (heldAgain) {
                return;
            }
            held.done(c);
        }
    }

    private void answer(ClientReply reply) {
        if (reply instanceof ClientReply.WriteReply w && w.status() == Status.BUSY && submitting != null
                && submitting.clientId() == w.clientId() && submitting.sequence() == w.sequence()) {
            if (resubmitting) {
                held.putBack(submitting);
            } else if (!held.tryAdd(submitting, System.nanoTime())) {
                held.bounced(submitting, System.nanoTime());
                bounced = true;
            }
            if (resubmitting || !bounced) {
                heldAgain = true;
                heldAtCommit = replica.commitPrefix(); // full as of now: tried again after progress
                heldAtTerm = replica.currentTerm();
                return;
            }
        }
        if (reply instanceof ClientReply.WriteReply w) {
            List<CompletableFuture<Outcome>> waiting = writes.remove(new WriteKey(w.clientId(), w.sequence()));
            if (waiting != null) {
                Outcome outcome = new Outcome(w.status(), w.leaderHint(), null, w.status() == Status.BUSY
                        ? busy() : leaderless(w.status(), w.leaderHint()));
                for (CompletableFuture<Outcome> f : waiting) {
                    f.complete(outcome);
                }
            }
        } else if (reply instanceof ClientReply.ReadReply r) {
            CompletableFuture<Outcome> f = reads.remove(r.readId());
            if (f != null) {
                byte[] data = r.status() == Status.OK ? store.read(r.range()) : null;
                f.complete(new Outcome(r.status(), r.leaderHint(), data, leaderless(r.status(), r.leaderHint())));
            }
        }
    }

    private String leaderless(Status status, int leaderHint) {
        return status == Status.OK || leaderHint >= 0 ? null
                : "group " + groupId + " has no leader that this member knows of; " + reachability(System.nanoTime());
    }

    private void expire() {
        long now = System.nanoTime();
        boolean writeGone = false;
        while (!deadlines.isEmpty() && (deadlines.peek().future().isDone() || deadlines.peek().deadline() <= now)) {
            Waiting w = deadlines.poll();
            if (w.future().isDone()) {
                continue;
            }
            if (w.write() != null) {
                List<CompletableFuture<Outcome>> waiting = writes.get(w.write());
                if (waiting != null) {
                    waiting.remove(w.future());
                    if (waiting.isEmpty()) {
                        writes.remove(w.write());
                        writeGone = true;
                    }
                }
            } else {
                reads.remove(w.readId());
            }
            w.future().complete(Outcome.timedOut(whyUnavailable(now)));
        }
        if (writeGone && !held.isEmpty()) {
            // A group that makes no progress proposes nothing again: free the room of held writes
            // nobody waits for any more now, not when it next moves.
            held.dropIf(c -> !writes.containsKey(new WriteKey(c.clientId(), c.sequence())));
        }
    }

    private String whyUnavailable(long now) {
        String busy = replica.busyReason();
        return "group " + groupId + " did not answer within " + requestTimeoutNanos / 1_000_000 + " ms ("
                + replica.role() + " here); " + (busy != null ? "the leader holds writes back: " + busy
                : reachability(now));
    }

    /** Why a write was bounced {@code BUSY}: the held writes are at their bound, and why the leader holds them. */
    private String busy() {
        String why = replica.busyReason();
        return "the leader's window of writes in flight is full and it holds as many more as it may (" + held.size()
                + " writes, " + held.bytes() + " bytes, " + held.waiting() + " more in line)"
                + (why != null ? ": " + why : "");
    }

    /** Which members went silent (three heartbeats): the likely reason a group cannot commit or elect. */
    private String reachability(long now) {
        long silence = silenceTicks * tickNanos;
        StringBuilder unreachable = new StringBuilder();
        for (Map.Entry<Integer, String> m : memberNames.entrySet()) {
            if (m.getKey() != replica.id() && now - lastHeard.getOrDefault(m.getKey(), 0L) > silence) {
                unreachable.append(unreachable.length() == 0 ? "" : ", ").append(m.getValue());
            }
        }
        return unreachable.length() == 0 ? "every member is reachable: an election or a sync is under way"
                : "unreachable members: " + unreachable + "; without a quorum the group can neither commit nor elect";
    }
}
