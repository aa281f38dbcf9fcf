package io.tarn.client;

import io.tarn.common.error.ErrorCode;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Tries a namespace call again while a namenode answers RETRY: with several namenodes, a directory
 * sealed by an rmdir that may yet give up, or a file being renamed to a name another namenode owns,
 * answers RETRY for a moment.
 *
 * <p>Used by {@link NamespaceRouter} around the calls it routes by path or file id. Guarantees: the
 * pauses between attempts start at {@value #FIRST_PAUSE_MS} ms and double up to
 * {@value #LONGEST_PAUSE_MS} ms ({@link #nextPause}); a RETRY answered once the timeout
 * ({@code tarn.rpc.timeout}) has passed since the first attempt is the result, so the last attempt
 * starts at most one pause after the timeout; any other answer, success or failure, is the result
 * at once. The pauses run on the JDK's
 * delayed executor and never block a thread. An answer that is not RETRY costs one {@code handle}
 * stage and nothing else. Thread-safe and stateless beyond its timeout.
 */
final class Backoff {
    /** The pause before the second attempt. */
    static final long FIRST_PAUSE_MS = 1;
    /** The longest pause between two attempts. */
    static final long LONGEST_PAUSE_MS = 64;

    private final long timeoutNanos;

    /** @param timeoutMillis how long after the first attempt another may start */
    Backoff(long timeoutMillis) {
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** The pause after one of {@code pauseMs}: twice as long, at most {@value #LONGEST_PAUSE_MS} ms. */
    static long nextPause(long pauseMs) {
        return Math.min(LONGEST_PAUSE_MS, pauseMs * 2);
    }

    /**
     * Runs {@code call}, and again after each RETRY answer as the class comment says; a failure other
     * than RETRY is first offered to {@code otherwise} (null for none), which may answer it with
     * another call (a redirect) or return null to let it stand, at no cost to a call that succeeds.
     * The first
     * attempt is made here rather than through {@link #attempt}: one call frame fewer on every routed
     * request, so that a blocking call is inlined by the JIT as deeply as when this was part of
     * {@link TarnClient} (its intermediate futures are then scalar-replaced).
     */
    <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> call,
                                      Function<Throwable, CompletableFuture<T>> otherwise) {
        long deadline = System.nanoTime() + timeoutNanos;
        return call.get().handle((v, e) -> e == null ? CompletableFuture.completedFuture(v)
                : afterFailure(e, call, otherwise, FIRST_PAUSE_MS, deadline)).thenCompose(f -> f);
    }

    /** An attempt after the first, made {@code pauseMs} after the one before answered RETRY. */
    private <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> call,
                                             Function<Throwable, CompletableFuture<T>> otherwise, long pauseMs,
                                             long deadline) {
        return call.get().handle((v, e) -> e == null ? CompletableFuture.completedFuture(v)
                : afterFailure(e, call, otherwise, pauseMs, deadline)).thenCompose(f -> f);
    }

    /** After an attempt failed with {@code e}: the next one after {@code pauseMs}, a redirect, or the failure. */
    private <T> CompletableFuture<T> afterFailure(Throwable e, Supplier<CompletableFuture<T>> call,
                                                  Function<Throwable, CompletableFuture<T>> otherwise, long pauseMs,
                                                  long deadline) {
        Throwable cause = Failures.unwrap(e);
        if (Failures.hasCode(cause, ErrorCode.RETRY) && System.nanoTime() < deadline) {
            Executor later = CompletableFuture.delayedExecutor(pauseMs, TimeUnit.MILLISECONDS);
            return CompletableFuture.runAsync(() -> { }, later)
                    .thenCompose(x -> attempt(call, otherwise, nextPause(pauseMs), deadline));
        }
        CompletableFuture<T> instead = otherwise == null ? null : otherwise.apply(cause);
        return instead != null ? instead : CompletableFuture.failedFuture(cause);
    }
}
