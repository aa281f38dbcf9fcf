package io.tarn.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Keeps at most {@code inFlight} asynchronous calls outstanding while a batch of calls runs.
 *
 * <p>The loopback benchmarks issue a fixed batch per JMH invocation (declared with
 * {@code @OperationsPerInvocation}) through one window: the caller blocks only when the window is
 * full, and {@link #run} returns once every call of the batch has completed. The first failure is
 * rethrown, so a broken cluster fails the benchmark instead of measuring error paths.
 */
public final class AsyncWindow {
    private final int inFlight;
    private final Semaphore permits;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    public AsyncWindow(int inFlight) {
        if (inFlight < 1) {
            throw new IllegalArgumentException("inFlight must be >= 1, got " + inFlight);
        }
        this.inFlight = inFlight;
        this.permits = new Semaphore(inFlight);
    }

    /**
     * Issues {@code calls} calls, {@code call.apply(i)} for i = 0..calls-1, at most {@code inFlight}
     * outstanding, and waits for all of them.
     *
     * @return the number of calls that completed (always {@code calls})
     */
    public int run(int calls, IntFunction<CompletableFuture<?>> call) throws Exception {
        for (int i = 0; i < calls; i++) {
            permits.acquire();
            CompletableFuture<?> f;
            try {
                f = call.apply(i);
            } catch (RuntimeException e) {
                permits.release();
                throw e;
            }
            f.whenComplete((v, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
                permits.release();
            });
        }
        permits.acquire(inFlight); // every call of the batch has completed
        permits.release(inFlight);
        Throwable e = failure.getAndSet(null);
        if (e != null) {
            throw new IllegalStateException("an asynchronous call failed: " + e, e);
        }
        return calls;
    }
}
