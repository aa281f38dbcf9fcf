package io.tarn.common.error;

import java.io.IOException;

/**
 * An operation failed for a reason Tarn knows; {@link #code()} says which.
 *
 * <p>Use {@link #of(ErrorCode, String)} to get the most specific subtype for a code, so that
 * {@code catch (FileNotFoundException e)} and friends work as Java and Hadoop users expect.
 */
public class TarnException extends IOException implements TarnError {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    /** Where to go instead (MOVED, WRONG_PARTITION, AT_COORDINATOR), or null. */
    private final transient ErrorDetail detail;

    public TarnException(ErrorCode code, String message) {
        this(code, message, (ErrorDetail) null);
    }

    /** An error that tells the caller where to go instead: see {@link ErrorDetail}. */
    public TarnException(ErrorCode code, String message, ErrorDetail detail) {
        super(message == null || message.isEmpty() ? code.description() : message);
        this.code = code;
        this.detail = detail;
    }

    public TarnException(ErrorCode code, String message, Throwable cause) {
        super(message == null || message.isEmpty() ? code.description() : message, cause);
        this.code = code;
        this.detail = null;
    }

    @Override
    public ErrorCode code() {
        return code;
    }

    /** Where to go instead, when the error says (a moved file's new id, the namenode to ask); else null. */
    public ErrorDetail detail() {
        return detail;
    }

    /** The most specific exception type for a code and its detail (null for none). */
    public static IOException of(ErrorCode code, String message, ErrorDetail detail) {
        return detail == null ? of(code, message) : new TarnException(code, message, detail);
    }

    /** The most specific exception type for a code. */
    public static IOException of(ErrorCode code, String message) {
        switch (code) {
            case FILE_NOT_FOUND:
            case PARENT_NOT_FOUND:
                return new TarnFileNotFoundException(code, message);
            case FILE_EXISTS:
                return new FileExistsException(message);
            case DIRECTORY_NOT_EMPTY:
                return new DirectoryNotEmptyException(message);
            case NOT_A_DIRECTORY:
                return new NotADirectoryException(message);
            case LEASE_CONFLICT:
            case LEASE_EXPIRED:
                return new LeaseException(code, message);
            case NO_SPACE:
                return new NoSpaceException(message);
            case DATANODE_DEAD:
            case UNKNOWN_DATANODE:
            case DATA_LOST:
            case GROUP_UNAVAILABLE:
                return new DatanodeUnavailableException(code, message);
            case INVALID_REPLICATION:
            case REPLICATION_FIXED:
            case NOT_ENOUGH_DATANODES:
            case REPLICATION_UNAVAILABLE:
                return new ReplicationException(code, message);
            case STALE_GENERATION:
                return new StaleGenerationException(message);
            case TIMEOUT:
                return new RpcTimeoutException(message);
            case UNAUTHENTICATED:
                return new AuthenticationException(message);
            case ACCESS_DENIED:
                return new AccessDeniedException(message);
            default:
                return new TarnException(code, message);
        }
    }

    /** The code of any throwable: its own for Tarn errors, {@link ErrorCode#INTERNAL} otherwise. */
    public static ErrorCode codeOf(Throwable t) {
        return t instanceof TarnError ? ((TarnError) t).code() : ErrorCode.INTERNAL;
    }
}
