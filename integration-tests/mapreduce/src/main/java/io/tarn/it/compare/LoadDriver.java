package io.tarn.it.compare;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Closed-loop load for a fixed time: either N threads each calling a blocking operation back to back
 * (HDFS's client API), or N chains of asynchronous operations, each issuing its next call from the
 * previous one's callback (Tarn's, like the Netty echo baseline's client). Each
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

    /**
     * {@code inflight} chains of calls of {@code op}: each answer's callback (on the client's I/O
     * thread) records the call and issues the chain's next one, the way the Netty echo baseline's
     * client sends its next message from the answer's handler. Same connection, same depth, no
     * thread between the answer and the next call.
     */
    static LoadResult chained(int inflight, double warmupSeconds, double seconds, AsyncOp op)
            throws IOException, InterruptedException {
        Window window = new Window(warmupSeconds, seconds);
        Histogram latencies = new ConcurrentHistogram(SIGNIFICANT_DIGITS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong counter = new AtomicLong();
        CountDownLatch ended = new CountDownLatch(inflight);
        Chain chain = new Chain(op, window, latencies, failure, counter, ended);
        for (int c = 0; c < inflight; c++) {
            chain.next();
        }
        long waitMillis = (long) ((warmupSeconds + seconds) * 1000) + 60_000;
        if (!ended.await(waitMillis, TimeUnit.MILLISECONDS)) {
            throw new IOException(ended.getCount() + " of " + inflight + " call chains still running "
                    + waitMillis + " ms after they started");
        }
        rethrow(failure.get());
        return window.result(latencies.getTotalCount(), latencies);
    }

    /** The shared state of {@link #chained}'s chains; {@link #next} issues one chain's next call. */
    private record Chain(AsyncOp op, Window window, Histogram latencies, AtomicReference<Throwable> failure,
                         AtomicLong counter, CountDownLatch ended) {
        void next() {
            long start = System.nanoTime();
            if (start >= window.end || failure.get() != null) {
                ended.countDown();
                return;
            }
            CompletableFuture<?> f;
            try {
                f = op.issue(counter.getAndIncrement());
            } catch (IOException | RuntimeException e) {
                failure.compareAndSet(null, e);
                ended.countDown();
                return;
            }
            f.whenComplete((v, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                    ended.countDown();
                    return;
                }
                long end = System.nanoTime();
                if (window.measures(start, end)) {
                    latencies.recordValue(end - start);
                }
                next();
            });
        }
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
