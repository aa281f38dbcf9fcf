package io.tarn.rpc.tcp;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server's bound on the bytes its connections hold in frames that have not arrived whole
 * ({@code tarn.rpc.server.max.partial.bytes}). Without it, authenticated peers that each announce
 * a frame of {@code tarn.rpc.max.frame} and send all of it but the last byte make the server hold
 * that much per connection, for as long as they like.
 *
 * <p>A connection's {@link FrameDecoder} reserves a frame's whole length once its length field is
 * there and the rest is not (Kafka's memory pool works the same way: reserving all at once means a
 * frame that got its room can always finish, so waiting connections cannot deadlock the ones being
 * served). A frame of at most {@link #FREE_BELOW} bytes reserves nothing: each connection holds at
 * most one partial frame, and the connection cap bounds those. When the room is taken the decoder
 * stops reading its connection and waits in line; releases grant the waiting frames in arrival
 * order, so a large frame is not overtaken for ever by small ones. A frame is granted on an empty
 * budget even when it is larger than the limit, so a limit below the largest frame slows large
 * frames down but never refuses them.
 *
 * <p>Thread-safe. Reserving and releasing are one compare-and-set each while nobody waits; the
 * line of waiting frames is guarded by this object's monitor.
 */
final class PartialFrameBudget {
    /** Frames up to this many bytes (with their length field) are received without a reservation. */
    static final long FREE_BELOW = FrameDecoder.COMPOSE_ABOVE;

    /** A decoder waiting for room: told on some thread once {@code bytes} were reserved for it. */
    interface Waiter {
        void granted(long bytes);
    }

    private record Waiting(Waiter waiter, long bytes) {
    }

    private final long limit;
    private final AtomicLong held = new AtomicLong();
    /** Guarded by {@code this}. */
    private final ArrayDeque<Waiting> line = new ArrayDeque<>();
    /** The line's length, read without the monitor on the fast paths. */
    private volatile int waiting;

    PartialFrameBudget(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("the bound on partial frames must be positive, got " + limit);
        }
        this.limit = limit;
    }

    /** {@code tarn.rpc.server.max.partial.bytes}. */
    long limit() {
        return limit;
    }

    /** Bytes reserved now by frames being received. */
    long held() {
        return held.get();
    }

    /** Frames waiting for room now. */
    int waiting() {
        return waiting;
    }

    /**
     * Reserves {@code bytes} for a frame; true when reserved. Otherwise {@code waiter} is in line
     * and its {@link Waiter#granted} is called once they are, unless {@link #cancel} comes first; it
     * may be called before this method returns, on this thread.
     */
    boolean reserve(long bytes, Waiter waiter) {
        if (waiting == 0 && tryTake(bytes)) {
            return true;
        }
        synchronized (this) {
            line.add(new Waiting(waiter, bytes));
            waiting = line.size();
        }
        grantWaiting(); // room may have been released between the failed take and joining the line
        return false;
    }

    /** Gives back {@code bytes} reserved before, and grants what waits and now fits. */
    void release(long bytes) {
        held.addAndGet(-bytes);
        if (waiting > 0) {
            grantWaiting();
        }
    }

    /**
     * Takes {@code waiter} out of the line; false when it was not in it (already granted, so its
     * {@link Waiter#granted} has been or is being called, and must release what it got).
     */
    boolean cancel(Waiter waiter) {
        synchronized (this) {
            boolean removed = line.removeIf(w -> w.waiter() == waiter);
            waiting = line.size();
            return removed;
        }
    }

    private boolean tryTake(long bytes) {
        while (true) {
            long now = held.get();
            if (now > 0 && now + bytes > limit) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    private void grantWaiting() {
        List<Waiting> granted = null;
        synchronized (this) {
            Waiting first;
            while ((first = line.peek()) != null && tryTake(first.bytes())) {
                line.poll();
                if (granted == null) {
                    granted = new ArrayList<>(2);
                }
                granted.add(first);
            }
            waiting = line.size();
        }
        if (granted != null) {
            for (Waiting w : granted) {
                w.waiter().granted(w.bytes());
            }
        }
    }

    @Override
    public String toString() {
        return "PartialFrameBudget[" + held.get() + " of " + limit + " bytes, " + waiting + " waiting]";
    }
}
