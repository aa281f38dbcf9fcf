package io.tarn.it.compare;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Closed-loop load for a fixed time: either N threads each calling a blocking operation back to back
 * (HDFS's client API), or one thread keeping N asynchronous operations outstanding (Tarn's). Each
 * point first runs the same load unmeasured for the warm-up time, then counts the operations that
 * complete in the measured window and records each one's latency (issue to answer) in an
 * HdrHistogram. The first failure ends the point and is thrown.
 */
final class LoadDriver {
    private static final int SIGNIFICANT_DIGITS = 3;

    /** A blocking operation; {@code i} numbers the calls of one thread. */
    @FunctionalInterface
    interface BlockingOp {
        void call(int thread, long i) throws IOException;
    }

    /** An asynchronous operation; {@code i} numbers the calls. */
    @FunctionalInterface
    interface AsyncOp {
        CompletableFuture<?> issue(long i) throws IOException;
    }

    private LoadDriver() {
    }

    /** {@code threads} threads, each running {@code op} back to back. */
    static LoadResult threads(int threads, double warmupSeconds, double seconds, BlockingOp op)
            throws IOException, InterruptedException {
        Window window = new Window(warmupSeconds, seconds);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Histogram> histograms = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        long[] counts = new long[threads];
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Histogram h = new Histogram(SIGNIFICANT_DIGITS);
            histograms.add(h);
            workers.add(new Thread(() -> {
                try {
                    for (long i = 0; failure.get() == null; i++) {
                        long start = System.nanoTime();
                        if (start >= window.end) {
                            break;
                        }
                        op.call(thread, i);
                        long end = System.nanoTime();
                        if (window.measures(start, end)) {
                            h.recordValue(end - start);
                            counts[thread]++;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "compare-load-" + t));
        }
        workers.forEach(Thread::start);
        for (Thread w : workers) {
            w.join();
        }
        rethrow(failure.get());
        Histogram all = new Histogram(SIGNIFICANT_DIGITS);
        histograms.forEach(all::add);
        long ops = 0;
        for (long c : counts) {
            ops += c;
        }
        return window.result(ops, all);
    }

    /** Up to {@code inflight} calls of {@code op} outstanding, issued from the calling thread. */
    static LoadResult async(int inflight, double warmupSeconds, double seconds, AsyncOp op)
            throws IOException, InterruptedException {
        Window window = new Window(warmupSeconds, seconds);
        Histogram latencies = new ConcurrentHistogram(SIGNIFICANT_DIGITS);
        Semaphore slots = new Semaphore(inflight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (long i = 0; failure.get() == null; i++) {
            slots.acquire();
            long start = System.nanoTime();
            if (start >= window.end) {
                slots.release();
                break;
            }
            CompletableFuture<?> f;
            try {
                f = op.issue(i);
            } catch (IOException | RuntimeException e) {
                slots.release();
                failure.compareAndSet(null, e);
                break;
            }
            f.whenComplete((v, e) -> {
                if (e == null) {
                    long end = System.nanoTime();
                    if (window.measures(start, end)) {
                        latencies.recordValue(end - start);
                    }
                } else {
                    failure.compareAndSet(null, e);
                }
                slots.release();
            });
        }
        slots.acquire(inflight);
        rethrow(failure.get());
        return window.result(latencies.getTotalCount(), latencies);
    }

    static void rethrow(Throwable t) throws IOException {
        if (t == null) {
            return;
        }
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (cause instanceof IOException io) {
            throw io;
        }
        throw new IOException(cause.toString(), cause);
    }

    /**
     * The measured window: an operation counts when it completes inside it and began after the
     * warm-up, so every counted latency is one of the measured load.
     */
    static final class Window {
        final long begin;
        final long end;

        Window(double warmupSeconds, double seconds) {
            this.begin = System.nanoTime() + (long) (warmupSeconds * 1e9);
            this.end = begin + (long) (seconds * 1e9);
        }

        boolean measures(long start, long finish) {
            return start >= begin && finish < end;
        }

        LoadResult result(long ops, Histogram latencies) {
            double seconds = (end - begin) / 1e9;
            return new LoadResult(ops / seconds, latencies.getValueAtPercentile(50) / 1000.0,
                    latencies.getValueAtPercentile(99) / 1000.0);
        }
    }
}
