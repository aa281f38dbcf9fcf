package io.tarn.common.error;

/**
 * A connection could not be authenticated: this side or the other has no key, they hold different
 * keys, or one of them does not authenticate at all. The message says which and what to configure.
 */
public final class AuthenticationException extends TarnException {
    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message) {
        super(ErrorCode.UNAUTHENTICATED, message);
    }
}
