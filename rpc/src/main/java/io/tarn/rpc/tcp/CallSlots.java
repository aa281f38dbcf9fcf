package io.tarn.rpc.tcp;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.rpc.IoThreads;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The call slots of one {@link TcpClient} connection ({@code tarn.rpc.max.inflight}) and the line
 * of calls waiting for one. A call takes a slot before it is queued for sending and frees it when
 * it is settled, so that no more calls than that are ever in flight.
 *
 * <p>A thread that may block waits for a slot in {@link #take}, up to {@code tarn.rpc.timeout}. An
 * I/O thread must not: the slot it waits for may be freed only by that very thread, and waiting
 * would stall every connection it serves. Its call is made without a slot ({@link
 * PendingCall#slotless}) and queued as usual; the connection's event loop then puts it in the line
 * ({@link #join}) and sends it when a slot frees ({@link #nextWithSlot}).
 *
 * <p>Called by the threads that issue calls ({@link #take}) and by the connection's event loop,
 * which owns the line and frees slots as calls are answered or given up. It guarantees that calls
 * leave the line in the order they joined it; that once a call waits in line, every call the event
 * loop takes from the submit queue joins behind it, so the calls of any one thread are sent in the
 * order it made them; and that a slot a call brings into the line (one made while others waited)
 * stays with the line, so the line never waits while slots are held by calls behind its head.
 *
 * <p>It is the semaphore itself, so the client reaches the permits with no more loads than when it
 * held a semaphore of its own.
 */
final class CallSlots extends Semaphore {
    private final int max;
    private final long waitNanos;
    private final String remote;

    // ---- event loop only ----
    /** Calls waiting for a slot, oldest first. */
    private final ArrayDeque<PendingCall<?>> line = new ArrayDeque<>();
    /** Slots held for the calls in line, brought by calls that joined it holding one; at most its length. */
    private int spare;

    /**
     * @param max       the slots ({@code tarn.rpc.max.inflight})
     * @param waitNanos how long a call waits for a slot ({@code tarn.rpc.timeout})
     */
    CallSlots(int max, long waitNanos, String remote) {
        super(max);
        this.max = max;
        this.waitNanos = waitNanos;
        this.remote = remote;
    }

    /**
     * Takes a slot for {@code call}, waiting for one only on a thread that may block. On an I/O
     * thread (of any transport: callbacks of other clients' futures run there) a call that finds no
     * free slot is marked {@link PendingCall#slotless} instead, to wait in line on the event loop.
     *
     * @return true when the call holds a slot or is to wait in line; false when it failed (no slot
     *         within the timeout, or interrupted), its buffers released
     */
    boolean take(PendingCall<?> call) {
        return tryAcquire() || takeSlowly(call);
    }

    private boolean takeSlowly(PendingCall<?> call) {
        if (IoThreads.onIoThread()) {
            call.slotless = true;
            return true;
        }
        try {
            if (tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        call.releaseBuffers();
        call.future.completeExceptionally(noSlot());
        return false;
    }

    private IOException noSlot() {
        return TarnException.of(ErrorCode.TIMEOUT, "no free call slot to " + remote + " within "
                + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms (" + max + " calls in flight)");
    }

    /**
     * Event loop: true when {@code call}, taken from the submit queue, must join the line instead of
     * being sent now: it holds no slot, or calls wait in line already (they go first).
     */
    boolean mustWait(PendingCall<?> call) {
        return call.slotless || !line.isEmpty();
    }

    /** Event loop: puts {@code call} at the end of the line; a slot it holds stays with the line. */
    void join(PendingCall<?> call) {
        if (!call.slotless) {
            call.slotless = true;
            spare++;
        }
        line.addLast(call);
    }

    /** Event loop: true when calls wait in line. */
    boolean hasWaiting() {
        return !line.isEmpty();
    }

    /**
     * Event loop: the call at the head of the line, taken out of it with a slot now held for it
     * (one the line kept, else a free one); null when the line is empty or no slot is free.
     */
    PendingCall<?> nextWithSlot() {
        PendingCall<?> head = line.peekFirst();
        if (head == null) {
            return null;
        }
        if (spare > 0) {
            spare--;
        } else if (!tryAcquire()) {
            return null;
        }
        line.pollFirst();
        head.slotless = false;
        return head;
    }

    /**
     * Event loop, with a connection open: fails the calls at the head of the line whose deadline
     * passed before {@code now} while they waited for a slot, as a thread that may block fails
     * when none frees in time.
     */
    void expire(long now) {
        PendingCall<?> head;
        while ((head = line.peekFirst()) != null && now - head.deadline >= 0) {
            line.pollFirst();
            if (spare > line.size()) {
                spare--;
                release();
            }
            head.releaseBuffers();
            head.future.completeExceptionally(noSlot());
        }
    }

    /** Event loop: fails every call in line with {@code error}; the slots kept for them are freed. */
    void failWaiting(Throwable error) {
        PendingCall<?> call;
        while ((call = line.pollFirst()) != null) {
            call.releaseBuffers();
            call.future.completeExceptionally(error);
        }
        if (spare > 0) {
            release(spare);
            spare = 0;
        }
    }

    /** Event loop only: calls waiting in line (for tests). */
    int waiting() {
        return line.size();
    }
}
