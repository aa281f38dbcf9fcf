package io.tarn.tools.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures one run: wall time from {@link #start()} to {@link #stop()}, and per operation its latency
 * (in an HdrHistogram, nanoseconds, 3 significant digits) and bytes. Asynchronous completions record
 * from transport threads, hence the concurrent histogram and atomic counters.
 */
final class Meter {
    private final Histogram latencies = new ConcurrentHistogram(3);
    private final AtomicLong ops = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private volatile long startNanos;
    private volatile long stopNanos;

    void start() {
        startNanos = System.nanoTime();
    }

    /** Ends the timed region; later calls keep the first end. */
    void stop() {
        if (stopNanos == 0) {
            stopNanos = System.nanoTime();
        }
    }

    /** Records one operation that began at {@code opStartNanos} and moved {@code opBytes}. */
    void record(long opStartNanos, long opBytes) {
        latencies.recordValue(Math.max(0, System.nanoTime() - opStartNanos));
        bytes.addAndGet(opBytes);
        ops.incrementAndGet();
    }

    long ops() {
        return ops.get();
    }

    long bytes() {
        return bytes.get();
    }

    long startNanos() {
        return startNanos;
    }

    double seconds() {
        long end = stopNanos == 0 ? System.nanoTime() : stopNanos;
        return (end - startNanos) / 1e9;
    }

    /** Latency at a percentile, in microseconds. */
    double percentileMicros(double percentile) {
        return latencies.getValueAtPercentile(percentile) / 1000.0;
    }
}
