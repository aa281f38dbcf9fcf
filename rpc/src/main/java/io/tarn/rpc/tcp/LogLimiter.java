package io.tarn.rpc.tcp;

import java.util.concurrent.TimeUnit;

/**
 * Rate limit for log lines a peer can cause at will (a malformed frame, a wrong protocol version):
 * at most {@code perWindow} lines per window, the rest counted and reported with the next line
 * allowed. So many bad connections, from one peer or many, cannot flood the log, yet an operator
 * still sees that they happen and how often. Thread-safe; one per server.
 */
final class LogLimiter {
    /** Lines allowed per window. */
    static final int PER_WINDOW = 10;
    /** The window. */
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int perWindow;
    private final long windowNanos;
    private long windowStart;
    private int logged;
    private long suppressed;

    LogLimiter() {
        this(PER_WINDOW, WINDOW_NANOS);
    }

    LogLimiter(int perWindow, long windowNanos) {
        this.perWindow = perWindow;
        this.windowNanos = windowNanos;
        this.windowStart = System.nanoTime();
    }

    /**
     * Whether a line may be logged now: -1 when not (it is counted), otherwise how many lines were
     * left out since the last one logged, for the caller to say.
     */
    synchronized long tryLog() {
        long now = System.nanoTime();
        if (now - windowStart >= windowNanos) {
            windowStart = now;
            logged = 0;
        }
        if (logged >= perWindow) {
            suppressed++;
            return -1;
        }
        logged++;
        long left = suppressed;
        suppressed = 0;
        return left;
    }
}
