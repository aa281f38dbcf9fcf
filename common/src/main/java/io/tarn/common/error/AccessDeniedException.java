package io.tarn.common.error;

/** The authenticated caller may not do what it asked; the message says who, what and why. */
public final class AccessDeniedException extends TarnException {
    private static final long serialVersionUID = 1L;

    public AccessDeniedException(String message) {
        super(ErrorCode.ACCESS_DENIED, message);
    }
}
