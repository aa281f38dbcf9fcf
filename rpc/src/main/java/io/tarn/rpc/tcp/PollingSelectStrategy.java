package io.tarn.rpc.tcp;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

/**
 * Keeps an event loop polling its connections (a non-blocking {@code epoll_wait}) for a while after
 * its last work, and only then lets it sleep in a blocking wait. A request that arrives meanwhile is
 * read at once instead of waking a sleeping thread: on a VM whose idle vCPUs halt, that wake-up
 * costs tens of microseconds, as long as the rest of a metadata call (docs/performance-history.md). The
 * price is the polling: up to one core for each event loop that had work in the last window.
 *
 * <p>One instance per event loop, used only by its thread.
 */
final class PollingSelectStrategy implements SelectStrategy {
    private final long windowNanos;
    /** When the loop last had work: I/O, a task, or waking from a blocking wait. */
    private long lastWork;
    /** The previous decision was a blocking wait: the loop is back because something woke it. */
    private boolean slept;

    PollingSelectStrategy(long windowNanos) {
        this.windowNanos = windowNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        long now = System.nanoTime();
        if (slept || hasTasks) {
            slept = false;
            lastWork = now;
        }
        if (now - lastWork < windowNanos) { // always so with tasks waiting
            int ready = selectSupplier.get(); // does not block
            if (ready > 0) {
                lastWork = now;
                return ready;
            }
            if (hasTasks) {
                return 0; // run the tasks
            }
            Thread.yield(); // poll again, after any other thread that wants this core
            return SelectStrategy.CONTINUE;
        }
        slept = true;
        return SelectStrategy.SELECT;
    }
}
