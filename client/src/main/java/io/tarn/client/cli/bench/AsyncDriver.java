package io.tarn.client.cli.bench;

import io.tarn.client.cli.ErrorReporter;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps up to {@code inflight} asynchronous operations outstanding until {@code ops} have completed,
 * timing each from issue to completion. The first failure stops issuing; the operations already in
 * flight are awaited, then the failure is thrown.
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
        Throwable t = failure.get();
        if (t != null) {
            Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
            throw cause instanceof IOException ? (IOException) cause
                    : new IOException(ErrorReporter.describe(cause), cause);
        }
    }
}
