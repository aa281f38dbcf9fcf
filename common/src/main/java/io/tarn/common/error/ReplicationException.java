package io.tarn.common.error;

/**
 * A file's replication could not be given or honoured: a factor other than 1 or 3
 * ({@link ErrorCode#INVALID_REPLICATION}), a change to a file that already holds data
 * ({@link ErrorCode#REPLICATION_FIXED}), too few live datanodes for it
 * ({@link ErrorCode#NOT_ENOUGH_DATANODES}), or replicated blocks this build cannot serve
 * ({@link ErrorCode#REPLICATION_UNAVAILABLE}). The message says which and what to do.
 */
public final class ReplicationException extends TarnException {
    private static final long serialVersionUID = 1L;

    public ReplicationException(ErrorCode code, String message) {
        super(code, message);
    }
}
