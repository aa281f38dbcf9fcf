package io.tarn.common.protocol;

/**
 * A message's fields cannot be decoded (truncated, out of range, unknown enum value). Servers answer
 * it with {@link io.tarn.common.error.ErrorCode#MALFORMED_REQUEST} and close the connection.
 */
public final class MalformedMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String message) {
        super(message, null, false, false);
    }
}
