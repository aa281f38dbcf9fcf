package io.tarn.hadoop;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.security.AccessControlException;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Translates Tarn's typed exceptions into the ones Hadoop's FileSystem specification names, by
 * {@link ErrorCode}, never by message. The Tarn exception stays attached as the cause, so its code
 * is still there for anyone who looks.
 *
 * <p>Codes whose Hadoop meaning depends on the operation ({@code IS_A_DIRECTORY} is "exists" to
 * create but "not found" to open) are handled by the callers in {@link TarnFileSystem}.
 */
final class HadoopErrors {
    private HadoopErrors() {
    }

    /** The code a Tarn exception carries, or null for any other throwable. */
    static ErrorCode codeOf(Throwable t) {
        return t instanceof TarnError ? ((TarnError) t).code() : null;
    }

    /** The Hadoop exception for a Tarn failure on {@code path}; other exceptions pass unchanged. */
    static IOException translate(IOException e, String path) {
        ErrorCode code = codeOf(e);
        if (code == null) {
            return e;
        }
        switch (code) {
            case FILE_EXISTS:
                return withCause(new FileAlreadyExistsException(e.getMessage()), e);
            case DIRECTORY_NOT_EMPTY:
                return withCause(new PathIsNotEmptyDirectoryException(path), e);
            case NOT_A_DIRECTORY:
                return withCause(new ParentNotDirectoryException(e.getMessage()), e);
            case ACCESS_DENIED:
                return withCause(new AccessControlException(e.getMessage()), e);
            default:
                return e; // FILE_NOT_FOUND and PARENT_NOT_FOUND already are FileNotFoundExceptions
        }
    }

    /** "This is a directory" where Hadoop expects {@link FileNotFoundException} (opening it for reading). */
    static FileNotFoundException notAFile(IOException e, String path) {
        return withCause(new FileNotFoundException("'" + path + "' is a directory, not a file: " + e.getMessage()), e);
    }

    /** "This is a directory" where Hadoop expects {@link FileAlreadyExistsException} (creating a file over it). */
    static FileAlreadyExistsException directoryExists(IOException e, String path) {
        return withCause(new FileAlreadyExistsException("'" + path + "' is a directory: " + e.getMessage()), e);
    }

    /**
     * Waits for a Tarn future from a caller's thread and rethrows its failure as the IOException it
     * carries (an interrupt as {@link InterruptedIOException}, leaving the call in flight).
     */
    static <T> T await(CompletableFuture<T> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw withCause(new InterruptedIOException("interrupted while waiting for Tarn"), e);
        } catch (ExecutionException e) {
            throw asIOException(e.getCause());
        }
    }

    /** The IOException behind a future's failure; runtime failures are wrapped. */
    static IOException asIOException(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof IOException) {
            return (IOException) cause;
        }
        return new IOException(cause.toString(), cause);
    }

    private static <E extends Throwable> E withCause(E e, Throwable cause) {
        e.initCause(cause);
        return e;
    }
}
