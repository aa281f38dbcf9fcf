package io.tarn.client;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * What a failed answer turns into for the code that handles it: the cause out of the future's
 * wrappers, its error code, and the typed {@link IOException} a blocking caller gets.
 *
 * <p>Used by the router and the merged namespace to tell redirecting answers (AT_COORDINATOR, MOVED,
 * RETRY, ...) from failures, by {@link AnswerWaiter} to rethrow, and by the streams to name their
 * path. Stateless; allocates only on failure paths, never on an answer that succeeded.
 */
final class Failures {
    private Failures() {
    }

    /** The cause inside {@link CompletionException} and {@link ExecutionException} wrappers. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * True when a datanode refused the block token of a call ({@code cause} unwrapped): it expired
     * (TOKEN_EXPIRED), or the datanode cannot check it (INVALID_TOKEN: a key it no longer holds, or a
     * namenode that changed its key). Asking the namenode for the block again gets a new one.
     */
    static boolean tokenRefused(Throwable cause) {
        return hasCode(cause, ErrorCode.TOKEN_EXPIRED) || hasCode(cause, ErrorCode.INVALID_TOKEN);
    }

    /**
     * {@code next}, or when it fails, the failure {@code first} that led to it (the more telling one:
     * a datanode's reason to refuse a token says more than the namenode's answer to asking again),
     * with the later failure attached as suppressed.
     */
    static <T> CompletableFuture<T> orFirst(CompletableFuture<T> next, Throwable first) {
        return next.handle((v, later) -> {
            if (later == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = unwrap(first);
            Throwable other = unwrap(later);
            if (other != cause) {
                cause.addSuppressed(other);
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    /** True when {@code cause} (already unwrapped) is a Tarn error with {@code code}. */
    static boolean hasCode(Throwable cause, ErrorCode code) {
        return cause instanceof TarnError t && t.code() == code;
    }

    /**
     * The IOException a blocking caller gets for {@code t}: the cause itself when it is one (a
     * typed Tarn error), INTERNAL for an unexpected runtime failure, else a plain wrapper.
     */
    static IOException asIOException(Throwable t) {
        Throwable cause = unwrap(t);
        if (cause instanceof IOException) {
            return (IOException) cause;
        }
        if (cause instanceof RuntimeException || cause instanceof Error) {
            return new TarnException(ErrorCode.INTERNAL, cause.toString(), cause);
        }
        return new IOException(cause);
    }

    /**
     * The same kind of exception, with "{@code doing} {@code path}: " before its message when it is a
     * Tarn error whose message does not name the path already (a stream's errors name its file).
     */
    static IOException naming(IOException e, String doing, String path) {
        if (e instanceof TarnError t && !String.valueOf(e.getMessage()).contains(path)) {
            IOException named = TarnException.of(t.code(), doing + " " + path + ": " + e.getMessage());
            named.initCause(e);
            return named;
        }
        return e;
    }

    /**
     * A new exception of the same type and message as {@code e}, caused by it: what a stream throws
     * for a failure it already reported. Throwing the same instance again breaks try-with-resources,
     * which adds the exception that {@code close()} throws to the one the body threw as suppressed,
     * and Java refuses to suppress an exception in itself.
     */
    static IOException again(IOException e) {
        IOException copy = e instanceof TarnError t ? TarnException.of(t.code(), e.getMessage())
                : new IOException(e.getMessage());
        copy.initCause(e);
        return copy;
    }
}
