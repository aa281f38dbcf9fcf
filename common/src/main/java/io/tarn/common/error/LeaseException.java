package io.tarn.common.error;

/** Another client holds the file's write lease, or this client's lease ran out. */
public final class LeaseException extends TarnException {
    private static final long serialVersionUID = 1L;

    public LeaseException(ErrorCode code, String message) {
        super(code, message);
    }
}
