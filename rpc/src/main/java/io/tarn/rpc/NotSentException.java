package io.tarn.rpc;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;

/**
 * A call that failed before any byte of it left this process (the connection could not be
 * opened): the server never saw it, so a caller may treat it as not having happened, which an
 * unanswered call that was sent does not allow.
 */
public final class NotSentException extends TarnException {
    private static final long serialVersionUID = 1L;

    public NotSentException(ErrorCode code, String message, Throwable cause) {
        super(code, message, cause);
    }
}
