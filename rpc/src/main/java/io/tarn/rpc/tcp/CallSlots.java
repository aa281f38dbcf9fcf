package io.tarn.rpc.tcp;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.rpc.IoThreads;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The call slots of one {@link TcpClient} connection ({@code tarn.rpc.max.inflight}): a call takes
 * one before it is queued for sending and frees it when it is settled, so that no more calls than
 * that are ever in flight.
 *
 * <p>Called by the threads that issue calls ({@link #take}) and by the connection's event loop,
 * which frees slots as calls are answered or given up. It is the semaphore itself, so the client
 * reaches the permits with no more loads than when it held a semaphore of its own.
 */
final class CallSlots extends Semaphore {
    private final int max;
    private final long waitNanos;
    private final String remote;

    /**
     * @param max       the slots ({@code tarn.rpc.max.inflight})
     * @param waitNanos how long a thread that may block waits for a slot ({@code tarn.rpc.timeout})
     */
    CallSlots(int max, long waitNanos, String remote) {
        super(max);
        this.max = max;
        this.waitNanos = waitNanos;
        this.remote = remote;
    }

    /**
     * Takes a slot for {@code call}, waiting for one only on a thread that may block. An event-loop
     * thread (of any transport: callbacks of other clients' futures run there) never waits: the slot
     * it waits for may be freed only by that very thread, and waiting would stall every connection
     * it serves.
     *
     * @return true when the call holds a slot; false when it failed (its buffers released)
     */
    boolean take(PendingCall<?> call) {
        return tryAcquire() || takeSlowly(call);
    }

    private boolean takeSlowly(PendingCall<?> call) {
        if (IoThreads.onIoThread()) {
            call.releaseBuffers();
            call.future.completeExceptionally(new TarnException(ErrorCode.SERVER_BUSY, max
                    + " calls already in flight to " + remote + " (tarn.rpc.max.inflight)"));
            return false;
        }
        try {
            if (tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        call.releaseBuffers();
        call.future.completeExceptionally(TarnException.of(ErrorCode.TIMEOUT, "no free call slot to " + remote
                + " within " + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms (" + max + " calls in flight)"));
        return false;
    }
}
