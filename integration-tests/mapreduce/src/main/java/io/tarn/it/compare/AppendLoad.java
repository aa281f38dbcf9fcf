package io.tarn.it.compare;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The two workloads of the replicated-write comparison, run the same way on both file systems. Each
 * of {@code depth} threads writes a file of its own; a thread's file is replaced by a fresh one
 * (closed, deleted) once it holds {@link #ROLL_BYTES}, so a load point's data stays bounded, and
 * everything a point wrote is deleted after it.
 *
 * <ul>
 *   <li>{@link #smallWrites}: each operation appends {@value #SMALL} bytes and waits for them to be
 *   acknowledged ({@code hflush}, or {@code hsync}); {@link LoadDriver#threads} counts the
 *   operations and their latencies.</li>
 *   <li>{@link #sequential}: each thread writes {@value #LARGE} bytes per call without waiting (the
 *   client streams them, with its own bytes in flight), and ends with an {@code hflush}. The rate
 *   is the bytes of the calls made in the measured window over the time from the window's start to
 *   the last thread's {@code hflush} returning, so every byte counted was acknowledged.</li>
 * </ul>
 */
final class AppendLoad {
    /** Bytes of one small write. */
    static final int SMALL = 4096;
    /** Bytes of one sequential write call. */
    static final int LARGE = 1 << 20;
    /** A thread's file is replaced by a new one once it holds this many bytes. */
    static final long ROLL_BYTES = 32L << 20;

    private AppendLoad() {
    }

    /**
     * Figures of one load point; the latencies are NaN where they were not measured (sequential
     * writes, whose calls return before their bytes are acknowledged).
     */
    record Figures(double opsPerSecond, double mbPerSecond, double p50Micros, double p99Micros) {
    }

    /** {@code depth} threads appending {@value #SMALL} bytes and flushing, back to back. */
    static Figures smallWrites(AppendTarget target, String dir, int replication, boolean sync, int depth,
                               double warmupSeconds, double seconds) throws IOException, InterruptedException {
        byte[] data = data(SMALL);
        try (RollingFiles files = new RollingFiles(target, dir, replication, depth)) {
            LoadResult r = LoadDriver.threads(depth, warmupSeconds, seconds,
                    (t, i) -> files.append(t, data, true, sync));
            if (r.opsPerSecond() == 0) { // nothing completed in the window: no latency to report
                return new Figures(0, 0, Double.NaN, Double.NaN);
            }
            return new Figures(r.opsPerSecond(), r.opsPerSecond() * SMALL / 1e6, r.p50Micros(), r.p99Micros());
        } finally {
            target.deleteTree(dir);
        }
    }

    /** {@code depth} threads each streaming {@value #LARGE}-byte writes into its own file. */
    static Figures sequential(AppendTarget target, String dir, int replication, int depth, double warmupSeconds,
                              double seconds) throws IOException, InterruptedException {
        byte[] data = data(LARGE);
        try (RollingFiles files = new RollingFiles(target, dir, replication, depth)) {
            long begin = System.nanoTime() + (long) (warmupSeconds * 1e9);
            long end = begin + (long) (seconds * 1e9);
            long[] counted = new long[depth];
            long[] finished = new long[depth];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < depth; t++) {
                int thread = t;
                threads.add(new Thread(() -> {
                    try {
                        for (long start = System.nanoTime(); start < end && failure.get() == null;
                             start = System.nanoTime()) {
                            files.append(thread, data, false, false);
                            if (start >= begin) {
                                counted[thread] += LARGE;
                            }
                        }
                        files.flush(thread);
                        finished[thread] = System.nanoTime();
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "replicated-write-" + t));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            LoadDriver.rethrow(failure.get());
            long last = begin;
            long bytes = 0;
            for (int t = 0; t < depth; t++) {
                last = Math.max(last, finished[t]);
                bytes += counted[t];
            }
            double elapsed = (last - begin) / 1e9;
            return new Figures(bytes / (double) LARGE / elapsed, bytes / elapsed / 1e6, Double.NaN, Double.NaN);
        } finally {
            target.deleteTree(dir);
        }
    }

    /** Pseudo-random bytes (not compressible, not zeros). */
    private static byte[] data(int size) {
        byte[] b = new byte[size];
        new Random(42).nextBytes(b);
        return b;
    }

    /**
     * One open file per thread under {@code dir}, replaced by the next once it holds
     * {@link #ROLL_BYTES}; each slot is used by its own thread only.
     */
    private static final class RollingFiles implements AutoCloseable {
        private final AppendTarget target;
        private final String dir;
        private final int replication;
        private final AppendTarget.Appender[] open;
        private final long[] written;
        private final int[] generation;

        RollingFiles(AppendTarget target, String dir, int replication, int threads) throws IOException {
            this.target = target;
            this.dir = dir;
            this.replication = replication;
            this.open = new AppendTarget.Appender[threads];
            this.written = new long[threads];
            this.generation = new int[threads];
            for (int t = 0; t < threads; t++) {
                open[t] = target.create(path(t), replication);
            }
        }

        private String path(int thread) {
            return dir + "/w" + thread + "-" + generation[thread];
        }

        void append(int thread, byte[] data, boolean flush, boolean sync) throws IOException {
            if (written[thread] >= ROLL_BYTES) {
                open[thread].close();
                target.deleteTree(path(thread));
                generation[thread]++;
                open[thread] = target.create(path(thread), replication);
                written[thread] = 0;
            }
            open[thread].write(data, 0, data.length);
            written[thread] += data.length;
            if (flush) {
                open[thread].flush(sync);
            }
        }

        void flush(int thread) throws IOException {
            open[thread].flush(false);
        }

        @Override
        public void close() throws IOException {
            IOException first = null;
            for (AppendTarget.Appender a : open) {
                try {
                    if (a != null) {
                        a.close();
                    }
                } catch (IOException e) {
                    if (first == null) {
                        first = e;
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }
}
