package io.tarn.namenode.journal;

import io.tarn.common.error.ErrorCode;

/**
 * The namespace journal cannot take records: its disk failed (full, read-only, I/O error) or it was
 * closed, or a group's log lost its leadership. Mutations are refused from then on; lookups go on.
 * The message says why and what to do; {@link #code()} is the error to answer with
 * ({@link SequencedLog#failureCode}).
 */
public final class JournalFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public JournalFailedException(String message) {
        this(message, ErrorCode.NAMESPACE_READ_ONLY);
    }

    public JournalFailedException(String message, ErrorCode code) {
        super(message);
        this.code = code;
    }

    /** NAMESPACE_READ_ONLY, or RETRY when another server takes the change (a group's new leader). */
    public ErrorCode code() {
        return code;
    }
}
