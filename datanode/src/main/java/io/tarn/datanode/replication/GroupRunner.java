package io.tarn.datanode.replication;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
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
 * <p>Thread-safety: the public input methods may be called from any thread; everything else runs
 * on {@code loop}.
 */
public final class GroupRunner {
    private static final Logger LOG = LoggerFactory.getLogger(GroupRunner.class);

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

    private record WriteKey(long clientId, long sequence) {
    }

    /** The client id of read-index confirmations (reads are not sessions: any id serves). */
    private static final long READ_INDEX_CLIENT = 0;
    private static final BlockRange NOTHING = new BlockRange(0, 0);
    private static final Outcome APPLIED = new Outcome(Status.OK, -1, null, null);

    private record Waiting(long deadline, WriteKey write, long readId, CompletableFuture<Outcome> future) {
    }

    private final long groupId;
    private final Replica replica;
    private final EventExecutor loop;
    private final GroupOutputs outputs;
    private final GroupStore store;
    private final Map<Integer, String> memberNames;
    private final long tickNanos;
    private final long requestTimeoutNanos;
    private final int maxCatchUpTicks;
    private final int silenceTicks;
    private final Map<WriteKey, List<CompletableFuture<Outcome>>> writes = new HashMap<>();
    private final Map<Long, CompletableFuture<Outcome>> reads = new HashMap<>();
    private final ArrayDeque<Waiting> deadlines = new ArrayDeque<>();
    /** Callers waiting for the applied prefix to reach an index, by index (loop thread only). */
    private final TreeMap<Long, List<CompletableFuture<Outcome>>> appliedWaits = new TreeMap<>();
    private final Map<Integer, Long> lastHeard = new HashMap<>();
    private long nextReadId = 1;
    private long lastTick;
    private boolean closed;
    /** Messages that could not be sent (loop thread only). */
    private long droppedSends;
    /** Why the group's journal stopped acknowledging, or null (loop thread only). */
    private String journalFailure;
    /** True while an input is fed and its effects performed (loop thread only). */
    private boolean busy;

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
     */
    public GroupRunner(long groupId, Replica replica, Map<Integer, String> memberNames, EventExecutor loop,
                       GroupOutputs outputs, GroupStore store, ReplicationConfig config, long tickNanos,
                       long requestTimeoutNanos) {
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
        this.lastTick = System.nanoTime();
        long now = lastTick;
        for (int member : memberNames.keySet()) {
            lastHeard.put(member, now);
        }
    }

    /** The group's id. */
    public long groupId() {
        return groupId;
    }

    /** The loop thread that owns this group. */
    public EventExecutor loop() {
        return loop;
    }

    // ---------------------------------------------------------------- inputs, from any thread

    /** Delivers a message from another member. */
    public void deliver(Message message) {
        run(() -> {
            lastHeard.put(message.from(), System.nanoTime());
            replica.handle(message);
        });
    }

    /** The journal completed every operation up to {@code opId}. */
    public void durable(long opId) {
        run(() -> replica.onDiskComplete(opId));
    }

    /**
     * The group's journal failed (full or read-only disk): nothing more becomes durable here, so
     * this member answers every pending and later request at once with {@code reason}, instead of
     * letting them time out.
     */
    public void journalFailed(String reason) {
        run(() -> {
            journalFailure = reason;
            for (Waiting w : deadlines) {
                w.future().complete(Outcome.timedOut(journalMessage()));
            }
            deadlines.clear();
            writes.clear();
            reads.clear();
        });
    }

    private String journalMessage() {
        return "group " + groupId + " cannot acknowledge writes on this datanode: " + journalFailure;
    }

    /** Names this member the first leader of a brand-new group (see {@link Replica#campaign()}). */
    public void campaign() {
        run(replica::campaign);
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
            if (journalFailure != null) {
                future.complete(Outcome.timedOut(journalMessage()));
                return;
            }
            WriteKey key = new WriteKey(command.clientId(), command.sequence());
            writes.computeIfAbsent(key, k -> new ArrayList<>(1)).add(future);
            deadlines.add(new Waiting(System.nanoTime() + requestTimeoutNanos, key, 0, future));
            replica.submitWrite(new ClientWrite(command));
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
        if (!closed) {
            busy = true;
            try {
                catchUp();
                perform();
                outputs.onTimer(groupId);
                expire();
            } finally {
                busy = false;
            }
        }
    }

    /** Stops the group here: pending requests fail, later inputs are ignored. */
    public void close() {
        run(() -> {
            closed = true;
            String why = "group " + groupId + " is no longer served by this datanode";
            for (Waiting w : deadlines) {
                w.future().complete(Outcome.timedOut(why));
            }
            deadlines.clear();
            writes.clear();
            reads.clear();
            appliedWaits.clear();
        });
    }

    // ---------------------------------------------------------------- observation (loop thread, or tests)

    /** The replica, for observation on the loop thread. */
    Replica replica() {
        return replica;
    }

    // ---------------------------------------------------------------- the loop

    private void run(Runnable input) {
        run(input, null);
    }

    private void run(Runnable input, CompletableFuture<Outcome> failOnReject) {
        Runnable task = () -> {
            if (closed) {
                if (failOnReject != null) {
                    failOnReject.complete(Outcome.timedOut("group " + groupId + " is no longer served here"));
                }
                return;
            }
            busy = true;
            try {
                catchUp();
                input.run();
                perform();
            } finally {
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
                    failOnReject.complete(Outcome.timedOut("group " + groupId + " is shutting down on this datanode"));
                }
            }
        }
    }

    private void catchUp() {
        long now = System.nanoTime();
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
            } else if (effect instanceof Effect.Persist persist) {
                outputs.persist(groupId, persist.op());
            } else if (effect instanceof Effect.Apply apply) {
                store.apply(apply.entry());
            } else if (effect instanceof Effect.Reply reply) {
                answer(reply.reply());
            } else if (effect instanceof Effect.CaptureCheckpoint capture) {
                replica.onCheckpointCaptured(capture.meta(), store.capture(capture.meta()));
                effects = concat(effects, i, replica.drainEffects());
            } else if (effect instanceof Effect.RestoreCheckpoint restore) {
                store.restore(restore.checkpoint());
            } else if (effect instanceof Effect.RoleChanged changed) {
                outputs.roleChanged(groupId, changed.role(), changed.term(), replica.leaderId());
            }
        }
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

    private void answer(ClientReply reply) {
        if (reply instanceof ClientReply.WriteReply w) {
            List<CompletableFuture<Outcome>> waiting = writes.remove(new WriteKey(w.clientId(), w.sequence()));
            if (waiting != null) {
                Outcome outcome = new Outcome(w.status(), w.leaderHint(), null, leaderless(w.status(),
                        w.leaderHint()));
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
                    }
                }
            } else {
                reads.remove(w.readId());
            }
            w.future().complete(Outcome.timedOut(whyUnavailable(now)));
        }
    }

    private String whyUnavailable(long now) {
        return "group " + groupId + " did not answer within " + requestTimeoutNanos / 1_000_000 + " ms ("
                + replica.role() + " here); " + reachability(now);
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
