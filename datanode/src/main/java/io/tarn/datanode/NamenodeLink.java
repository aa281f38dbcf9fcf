package io.tarn.datanode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.AdminProtocol.BlockKeys;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatResponse;
import io.tarn.common.protocol.AdminProtocol.LostRegion;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A datanode's side of its relationship with one namenode: registers, then heartbeats every
 * interval, and registers again whenever the namenode may have forgotten it. A datanode has one
 * link per namenode of the cluster ({@link NamenodeLinks}); each lives and fails on its own, so a
 * namenode that is down costs only its own regions.
 *
 * <p>Heartbeats list the block groups of the link's partition hosted here and the ones this
 * datanode leads ({@link GroupCommands}); the answer's group commands are applied on the link's
 * thread.
 *
 * <p>One single-threaded scheduler (shared by a datanode's links, owned by their
 * {@link NamenodeLinks}) runs all of the link's work; RPC completions are handed back to it, so the
 * transport's I/O threads never block and no lock is needed. At most one call is in flight.
 *
 * <p>States and transitions:
 * <ul>
 *   <li>unregistered &rarr; registered: a REGISTER_DATANODE call succeeds and the listener accepts it;</li>
 *   <li>registered &rarr; unregistered: a heartbeat is answered UNKNOWN_DATANODE;</li>
 *   <li>registered &rarr; registered (again): after any call failed to reach the namenode, the next
 *       contact is a registration rather than a heartbeat, because a restarted namenode may have
 *       a new token key even if it still knows this datanode's id.</li>
 *   <li>any &rarr; leaving: {@link #deregister} was called. Nothing new is started; once the call in
 *       flight (if any) has finished, a registered link sends DEREGISTER_DATANODE, and then nothing
 *       more.</li>
 * </ul>
 * Failures are logged once per change of condition, not per attempt.
 *
 * <p><b>Back-off.</b> Registrations are retried with exponential back-off: after the n-th failed
 * contact in a row the next registration waits {@code interval * 2^(n-1)} (plus up to a quarter of
 * that as jitter, so that datanodes do not stampede a restarted namenode together), capped at
 * {@link #backoffCap}. A contact fails when a registration fails for any reason (unreachable,
 * refused, or accepted but unusable here) or when a heartbeat after it fails or is answered
 * {@code UNKNOWN_DATANODE}; only a heartbeat the namenode answers resets the count. So a datanode that
 * keeps failing right after registering (it cannot apply the answer, or its heartbeats fail) no
 * longer registers at every interval: each such registration costs the namenode a re-registration
 * (its "re-registered with its data intact" log line), and a 300 s chaos run saw thousands of them
 * from one datanode whose journal writer had died of heap exhaustion. Heartbeats themselves keep
 * their interval.
 */
public final class NamenodeLink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeLink.class);
    /** Upper bound of the registration back-off for intervals up to it (see {@link #backoffCap}). */
    public static final long MAX_BACKOFF_MS = 15_000;

    /** Applies a registration reply and the block keys of heartbeat answers; runs on the link's thread. */
    @FunctionalInterface
    public interface Listener {
        /** Throws when the reply cannot be used; the link then retries later (may do file I/O). */
        void registered(RegisterResponse response) throws Exception;

        /** The namenode's block keys of the moment, from a heartbeat answer. */
        default void keys(BlockKeys keys) {
        }
    }

    /** The condition last logged, so each change is logged once. */
    private enum Contact { STARTING, OK, UNREACHABLE, REFUSED }

    /**
     * A deregistration asked for and not yet sent; {@code sent} completes with true once the
     * namenode acknowledged it, false when there was nothing to deregister.
     */
    private record Goodbye(boolean dataKept, CompletableFuture<Boolean> sent) {
    }

    private final RpcClient client;
    private final Supplier<RegisterRequest> registerRequest;
    private final Supplier<List<LostRegion>> lostRegions;
    private final Listener listener;
    private final long intervalMs;
    private final ScheduledExecutorService thread;
    private final int partition;
    private final GroupCommands groups;
    private final Object registeredSignal = new Object();
    private final long backoffCapMs;
    private volatile ScheduledFuture<?> ticking;
    /** Shortest time between two heartbeats sent ahead of the interval ({@link #heartbeatSoon}). */
    static final long SOON_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private final AtomicLong soonAt = new AtomicLong(System.nanoTime() - SOON_GAP_NANOS);

    // Owned by the link thread.
    private boolean inFlight;
    private boolean mustRegister = true;
    private boolean leaving;
    private Goodbye goodbye;
    private Contact contact = Contact.STARTING;
    private long storageIdHigh;
    private long storageIdLow;
    /** Failed contacts since the namenode last answered a heartbeat. */
    private int failuresInRow;
    /** No registration is sent before this {@link System#nanoTime()}. */
    private long registerNotBefore;
    /** The delay before the next registration, in ms (0: none; for logs). */
    private long backoffMs;

    /** Registrations sent (the namenode logs each one it receives); read by any thread. */
    private volatile long registrations;

    /** Read by any thread: the id granted by the namenode, or -1 while unregistered. */
    private volatile int datanodeId = -1;
    private volatile boolean closed;

    /**
     * @param client          the namenode's RPC client; closed with the link
     * @param registerRequest builds each registration (it may change, e.g. {@code intact})
     * @param interval        the heartbeat and retry interval
     * @param thread          a single-threaded scheduler that runs the link (and may run other
     *                        links); not shut down by the link. Whoever owns it shuts it down after
     *                        closing its links and waits for it, so that no registration is applied
     *                        after that.
     */
    public NamenodeLink(RpcClient client, Supplier<RegisterRequest> registerRequest, Listener listener,
                        Duration interval, ScheduledExecutorService thread) {
        this(client, registerRequest, listener, interval, thread, 0, GroupCommands.NONE);
    }

    /**
     * A link whose heartbeats report the block groups of {@code partition} hosted here and hand the
     * namenode's group commands to {@code groups} (on the link's thread).
     */
    public NamenodeLink(RpcClient client, Supplier<RegisterRequest> registerRequest, Listener listener,
                        Duration interval, ScheduledExecutorService thread, int partition, GroupCommands groups) {
        this(client, registerRequest, listener, interval, thread, partition, groups, List::of);
    }

    /**
     * A link whose heartbeats also report the regions of its partition's share lost here since the
     * registration ({@code lostRegions}, asked on the link's thread for every heartbeat).
     */
    public NamenodeLink(RpcClient client, Supplier<RegisterRequest> registerRequest, Listener listener,
                        Duration interval, ScheduledExecutorService thread, int partition, GroupCommands groups,
                        Supplier<List<LostRegion>> lostRegions) {
        this.lostRegions = lostRegions;
        this.client = client;
        this.registerRequest = registerRequest;
        this.listener = listener;
        this.intervalMs = Math.max(1, interval.toMillis());
        this.backoffCapMs = backoffCap(intervalMs);
        this.registerNotBefore = System.nanoTime();
        this.thread = thread;
        this.partition = partition;
        this.groups = groups;
    }

    /**
     * The longest wait between two registrations: 16 intervals, but at most 15 s (unless the
     * interval itself is longer), so that a datanode rejoins a namenode back from a restart soon.
     */
    public static long backoffCap(long intervalMs) {
        return Math.max(intervalMs, Math.min(16 * intervalMs, MAX_BACKOFF_MS));
    }

    /**
     * The wait before the next registration after {@code failures} failed contacts in a row (at
     * least 1), without jitter: {@code interval * 2^(failures-1)}, capped at {@code capMs}.
     */
    public static long backoff(long intervalMs, long capMs, int failures) {
        int doublings = Math.min(Math.max(failures, 1) - 1, 30);
        return Math.min(capMs, intervalMs << doublings);
    }

    /**
     * Sends a heartbeat now instead of at the next interval, at most once per
     * {@link #SOON_GAP_NANOS}: a client or another member asked for a block group this datanode does
     * not host yet, and the namenode's {@code CreateGroup} for it comes with the answer. Without it
     * a new group waited for each member's next heartbeat (up to {@code tarn.datanode.heartbeat.interval})
     * before it could elect a leader and take its first write.
     */
    public void heartbeatSoon() {
        long now = System.nanoTime();
        long last = soonAt.get();
        if (closed || now - last < SOON_GAP_NANOS || !soonAt.compareAndSet(last, now)) {
            return;
        }
        try {
            thread.execute(this::tick);
        } catch (RejectedExecutionException e) {
            // The link is stopping: nothing more to ask.
        }
    }

    /** Starts registering in the background at once; returns immediately. */
    public void start() {
        ticking = thread.scheduleWithFixedDelay(this::tick, 0, intervalMs, TimeUnit.MILLISECONDS);
    }

    /** The datanode id the namenode granted, or -1 while not registered. */
    public int datanodeId() {
        return datanodeId;
    }

    /** Registrations sent so far (each one the namenode receives, it records and logs). */
    public long registrations() {
        return registrations;
    }

    /** True while the namenode has accepted this datanode and not disowned it since. */
    public boolean isRegistered() {
        return datanodeId >= 0;
    }

    /** Waits until registered; true when registered within {@code timeout}. */
    public boolean awaitRegistered(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (registeredSignal) {
            while (!isRegistered()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || closed) {
                    return isRegistered();
                }
                TimeUnit.NANOSECONDS.timedWait(registeredSignal, left);
            }
            return true;
        }
    }

    private void tick() {
        if (closed || inFlight || leaving) {
            return;
        }
        boolean registering = mustRegister || !isRegistered();
        if (registering && System.nanoTime() - registerNotBefore < 0) {
            return;
        }
        inFlight = true;
        try {
            if (registering) {
                registrations++;
                RegisterRequest request = registerRequest.get();
                storageIdHigh = request.storageIdHigh();
                storageIdLow = request.storageIdLow();
                client.call(Opcode.REGISTER_DATANODE, request::encode, RegisterResponse::decode)
                        .whenCompleteAsync(this::registerDone, thread);
            } else {
                HeartbeatRequest request = new HeartbeatRequest(datanodeId, storageIdHigh, storageIdLow,
                        groups.hosted(partition), groups.leading(partition), groups.failed(partition),
                        lostRegions.get());
                client.call(Opcode.HEARTBEAT, request::encode, HeartbeatResponse::decode)
                        .whenCompleteAsync(this::heartbeatDone, thread);
            }
        } catch (RuntimeException | Error e) {
            // A call that cannot even be issued is retried later like one that failed (an Error
            // escaping would silently end the link's periodic task).
            inFlight = false;
            failed(registering ? "register with" : "send a heartbeat to", e);
        }
    }

    private void registerDone(RegisterResponse response, Throwable error) {
        inFlight = false;
        if (closed) {
            return;
        }
        try {
            applyRegistration(response, error);
        } catch (RuntimeException | Error e) {
            // Thrown from this completion, it would vanish in the future nobody reads.
            unusable("Could not apply the registration answered by namenode " + client.remote() + ": " + e);
        }
        sayGoodbyeIfLeaving();
    }

    private void applyRegistration(RegisterResponse response, Throwable error) {
        if (error != null) {
            failed("register with", error);
            return;
        }
        try {
            listener.registered(response);
        } catch (Exception | Error e) {
            // An Error too (out of memory while hosting its groups again): caught, it is logged and
            // retried with back-off; escaping, it would vanish and the link would register again at once.
            unusable("The namenode " + client.remote() + " answered a registration this datanode cannot use: "
                    + (e instanceof Error ? e.toString() : e.getMessage()));
            return;
        }
        mustRegister = false;
        contact = Contact.OK;
        setDatanodeId(response.datanodeId());
        LOG.info("Registered with namenode {} as datanode {} (block size {}, reset generations {})",
                client.remote(), response.datanodeId(), response.blockSize(), response.resetGenerations());
    }

    private void heartbeatDone(HeartbeatResponse response, Throwable error) {
        inFlight = false;
        if (closed) {
            return;
        }
        applyHeartbeat(error);
        if (error == null && !response.keys().keys().isEmpty()) {
            try {
                listener.keys(response.keys());
            } catch (RuntimeException e) {
                LOG.warn("Could not take the block keys of namenode {}: {}", client.remote(), e.toString());
            }
        }
        if (error == null && response.reportAgain() && !leaving) {
            // Its last block report showed blocks behind the namespace; a new one confirms or clears them.
            mustRegister = true;
            registerNotBefore = System.nanoTime();
            try {
                thread.execute(this::tick);
            } catch (RejectedExecutionException e) {
                // Stopping: nothing more to report.
            }
        }
        if (error == null && !response.commands().isEmpty() && !leaving) {
            try {
                groups.apply(partition, response.commands());
            } catch (RuntimeException | Error e) {
                // The namenode sends what is still needed again with the next answer.
                LOG.warn("Could not apply the block group commands of namenode {}: {}", client.remote(), e.toString());
            }
        }
        sayGoodbyeIfLeaving();
    }

    private void applyHeartbeat(Throwable error) {
        if (error == null) {
            if (contact != Contact.OK) {
                LOG.info("Namenode {} answers heartbeats again", client.remote());
                contact = Contact.OK;
            }
            failuresInRow = 0;
            backoffMs = 0;
            return;
        }
        if (TarnException.codeOf(unwrap(error)) == ErrorCode.UNKNOWN_DATANODE) {
            setDatanodeId(-1);
            boolean first = failuresInRow == 0;
            long wait = backOff();
            if (first) {
                // Forgotten after a healthy spell (the namenode restarted): register again at once.
                registerNotBefore = System.nanoTime();
                LOG.info("Namenode {} does not know this datanode any more; registering again", client.remote());
                thread.execute(this::tick);
            } else {
                LOG.info("Namenode {} does not know this datanode any more, again; registering again in {} ms",
                        client.remote(), wait);
            }
            return;
        }
        failed("send a heartbeat to", error);
    }

    /**
     * Tells the namenode this datanode is stopping (DEREGISTER_DATANODE), so it stops allocating on it
     * at once instead of after its liveness timeout; heartbeats and registrations stop for good.
     * Best effort and bounded: waits at most {@code timeout}, and returns false (logged at info) when
     * the namenode did not acknowledge in time or refused, or at debug when this datanode is not
     * registered. Call once, before {@link #close()}, and never on the link's own thread.
     *
     * @param dataKept whether this datanode's regions, with their data, survive the stop
     * @return true when the namenode acknowledged the deregistration
     */
    public boolean deregister(boolean dataKept, Duration timeout) {
        return awaitDeregistered(startDeregistration(dataKept), System.nanoTime() + timeout.toNanos());
    }

    /**
     * Starts {@link #deregister(boolean, Duration)} without waiting, so that a datanode can say
     * goodbye to all its namenodes at once; pass the result to {@link #awaitDeregistered}.
     *
     * @return completes with true once acknowledged (logged), false when there was nothing to
     *         deregister, or exceptionally when the namenode refused or could not be reached
     */
    public CompletableFuture<Boolean> startDeregistration(boolean dataKept) {
        CompletableFuture<Boolean> sent = new CompletableFuture<>();
        try {
            thread.execute(() -> leave(new Goodbye(dataKept, sent)));
        } catch (RejectedExecutionException e) {
            LOG.debug("Namenode link already closed; no deregistration sent");
            sent.complete(false);
            return sent;
        }
        return sent.thenApply(acknowledged -> {
            if (acknowledged) {
                LOG.info("Deregistered from namenode {} (data kept: {})", client.remote(), dataKept);
            }
            return acknowledged;
        });
    }

    /**
     * Waits until {@code deadlineNanos} ({@link System#nanoTime()}) for a deregistration started by
     * {@link #startDeregistration}; logs at info when it was not acknowledged.
     *
     * @return true when the namenode acknowledged it
     */
    public boolean awaitDeregistered(CompletableFuture<Boolean> sent, long deadlineNanos) {
        long waitNanos = Math.max(0, deadlineNanos - System.nanoTime());
        try {
            return sent.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.info("Namenode {} did not acknowledge the deregistration in time; it will mark this datanode dead "
                    + "when its heartbeats stay away", client.remote());
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e);
            LOG.info("Could not deregister from namenode {} ({} {}); it will mark this datanode dead when its "
                    + "heartbeats stay away", client.remote(), TarnException.codeOf(cause), cause.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private void leave(Goodbye g) {
        if (leaving) {
            g.sent().complete(false);
            return;
        }
        leaving = true;
        goodbye = g;
        sayGoodbyeIfLeaving();
    }

    /** Sends the pending goodbye unless a call is in flight (its completion calls this again). */
    private void sayGoodbyeIfLeaving() {
        Goodbye g = goodbye;
        if (g == null || inFlight) {
            return;
        }
        goodbye = null;
        if (!isRegistered()) {
            LOG.debug("Not registered with namenode {}; no deregistration to send", client.remote());
            g.sent().complete(false);
            return;
        }
        DeregisterRequest request = new DeregisterRequest(datanodeId, storageIdHigh, storageIdLow, g.dataKept());
        // Stays in flight for good: nothing is sent after the goodbye.
        inFlight = true;
        try {
            // Completing a future touches no link state, so the I/O thread may do it directly.
            client.call(Opcode.DEREGISTER_DATANODE, request::encode, body -> Boolean.TRUE)
                    .whenComplete((ok, error) -> {
                        if (error != null) {
                            g.sent().completeExceptionally(error);
                        } else {
                            g.sent().complete(true);
                        }
                    });
        } catch (RuntimeException e) {
            g.sent().completeExceptionally(e);
        }
    }

    /** Counts a failed contact and sets when the next registration may go; returns the wait in ms. */
    private long backOff() {
        failuresInRow++;
        long delay = backoff(intervalMs, backoffCapMs, failuresInRow);
        delay += ThreadLocalRandom.current().nextLong(delay / 4 + 1);
        backoffMs = delay;
        registerNotBefore = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
        return delay;
    }

    private void failed(String action, Throwable error) {
        Throwable cause = unwrap(error);
        ErrorCode code = TarnException.codeOf(cause);
        mustRegister = true;
        backOff();
        // Errors without a Tarn code come from the local transport (connection refused, unresolved
        // host): the namenode is not there. A coded answer means it is there and said no.
        boolean unreachable = code == ErrorCode.CONNECTION_LOST || code == ErrorCode.TIMEOUT
                || !(cause instanceof TarnError);
        if (!unreachable) {
            refused("The namenode " + client.remote() + " refused to let this datanode " + action + " it: "
                    + code + " " + cause.getMessage());
            return;
        }
        if (contact != Contact.UNREACHABLE) {
            contact = Contact.UNREACHABLE;
            LOG.warn("Cannot {} namenode {} ({}); retrying in {} ms, backing off up to {} ms", action,
                    client.remote(), cause.toString(), backoffMs, backoffCapMs);
        }
    }

    /** A registration the namenode accepted but this datanode cannot apply: counts as a failed contact. */
    private void unusable(String message) {
        backOff();
        refused(message);
    }

    private void refused(String message) {
        mustRegister = true;
        if (contact != Contact.REFUSED) {
            contact = Contact.REFUSED;
            LOG.error("{}; retrying in {} ms, backing off up to {} ms", message, backoffMs, backoffCapMs);
        }
    }

    private void setDatanodeId(int id) {
        synchronized (registeredSignal) {
            datanodeId = id;
            registeredSignal.notifyAll();
        }
    }

    private static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    /**
     * Stops the link: nothing more is sent (without a {@link #deregister} first, the namenode notices
     * by the missing heartbeats). A registration being applied on the link's thread may still
     * finish: the owner of the thread waits for it (see the constructor) before freeing storage.
     */
    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> t = ticking;
        if (t != null) {
            t.cancel(false);
        }
        synchronized (registeredSignal) {
            registeredSignal.notifyAll();
        }
        client.close();
    }
}
