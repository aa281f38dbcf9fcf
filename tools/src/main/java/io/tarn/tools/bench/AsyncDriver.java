package io.tarn.tools.bench;

import io.tarn.tools.ErrorReporter;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps up to {@code inflight} asynchronous operations outstanding until {@code ops} have completed,
 * timing each from issue to completion. The first failure stops issuing; the operations already in
 * flight are awaited, then the failure is thrown.
 *
 * <p>Two ways: {@link #run} issues every operation from the calling thread, taking a slot of a
 * semaphore for each (for operations that may block, such as a stream's {@code writeAsync});
 * {@link #chained} keeps {@code inflight} chains going, each issuing its next operation from the
 * previous one's completion, on the client's I/O thread with no thread in between (for calls that
 * never block, such as metadata lookups).
 */
final class AsyncDriver {
    /** Issues operation number {@code i}. */
    @FunctionalInterface
    interface AsyncOp {
        CompletableFuture<?> issue(long i) throws IOException;
    }

    private AsyncDriver() {
    }

    static void run(long ops, int inflight, long bytesPerOp, Meter meter, AsyncOp op)
            throws IOException, InterruptedException {
        Semaphore slots = new Semaphore(inflight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (long i = 0; i < ops && failure.get() == null; i++) {
            slots.acquire();
            long start = System.nanoTime();
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
                    meter.record(start, bytesPerOp);
                } else {
                    failure.compareAndSet(null, e);
                }
                slots.release();
            });
        }
        slots.acquire(inflight);
        rethrow(failure.get());
    }

    /**
     * {@code inflight} chains of operations that never block: each completion records its operation
     * and issues the chain's next one, until {@code ops} have been issued.
     */
    static void chained(long ops, int inflight, long bytesPerOp, Meter meter, AsyncOp op)
            throws IOException, InterruptedException {
        Chains chains = new Chains(ops, bytesPerOp, meter, op, new AtomicLong(), new AtomicReference<>(),
                new CountDownLatch(inflight));
        for (int c = 0; c < inflight; c++) {
            chains.next();
        }
        chains.ended().await();
        rethrow(chains.failure().get());
    }

    /** The state the chains of {@link #chained} share; {@link #next} issues one chain's next operation. */
    private record Chains(long ops, long bytesPerOp, Meter meter, AsyncOp op, AtomicLong issued,
                          AtomicReference<Throwable> failure, CountDownLatch ended) {
        void next() {
            long i = issued.getAndIncrement();
            if (i >= ops || failure.get() != null) {
                ended.countDown();
                return;
            }
            long start = System.nanoTime();
            CompletableFuture<?> f;
            try {
                f = op.issue(i);
            } catch (IOException | RuntimeException e) {
                failure.compareAndSet(null, e);
                ended.countDown();
                return;
            }
            f.whenComplete((v, e) -> {
                if (e == null) {
                    meter.record(start, bytesPerOp);
                    next();
                } else {
                    failure.compareAndSet(null, e);
                    ended.countDown();
                }
            });
        }
    }

    private static void rethrow(Throwable t) throws IOException {
        if (t != null) {
            Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
            throw cause instanceof IOException ? (IOException) cause
                    : new IOException(ErrorReporter.describe(cause), cause);
        }
    }
}
