package io.tarn.tools.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Prints a progress line to standard error every {@link #INTERVAL_SECONDS} seconds while a run lasts:
 * operations done and the rate over the last interval. Short runs print nothing.
 */
final class Progress implements AutoCloseable {
    static final long INTERVAL_SECONDS = 2;

    private final ScheduledExecutorService timer;
    private final PrintStream err;
    private final String label;
    private final Meter meter;
    private final long total;
    private final boolean data;
    private long lastOps;
    private long lastBytes;
    private long lastNanos;

    private Progress(PrintStream err, String label, Meter meter, long total, boolean data) {
        this.err = err;
        this.label = label;
        this.meter = meter;
        this.total = total;
        this.data = data;
        this.lastNanos = System.nanoTime();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "iobench-progress");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(this::report, INTERVAL_SECONDS, INTERVAL_SECONDS, TimeUnit.SECONDS);
    }

    static Progress start(PrintStream err, String label, Meter meter, long total, boolean data) {
        return new Progress(err, label, meter, total, data);
    }

    private void report() {
        long now = System.nanoTime();
        long ops = meter.ops();
        long bytes = meter.bytes();
        double seconds = (now - lastNanos) / 1e9;
        String line = String.format(Locale.ROOT, "iobench %s: %d/%d ops, %.0f ops/s", label, ops, total,
                (ops - lastOps) / seconds);
        if (data) {
            line += String.format(Locale.ROOT, ", %.1f MB/s", (bytes - lastBytes) / seconds / 1e6);
        }
        err.println(line);
        err.flush();
        lastOps = ops;
        lastBytes = bytes;
        lastNanos = now;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
