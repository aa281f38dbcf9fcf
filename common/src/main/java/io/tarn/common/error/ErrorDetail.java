package io.tarn.common.error;

/**
 * What an error carries beyond its code and message, for the errors that tell a client where to go
 * instead: the new id of a file that moved (MOVED), or the namenode that owns what was asked
 * (WRONG_PARTITION, AT_COORDINATOR). The client acts on it without asking again. On the wire it
 * follows the error message ({@code io.tarn.common.protocol.ErrorAnswer}).
 */
public sealed interface ErrorDetail permits ErrorDetail.MovedTo, ErrorDetail.Redirect {
    /** The file now has this id, at the namenode that owns its new name. */
    record MovedTo(long fileId) implements ErrorDetail {
    }

    /**
     * Send it to namenode {@code partition}, at {@code address} (host:port); for NOT_LEADER, to
     * member {@code partition} of the block group, the leader, at {@code address}.
     */
    record Redirect(int partition, String address) implements ErrorDetail {
    }
}
