package io.tarn.common.error;

/** No free block is left in any storage class the file may use ({@link ErrorCode#NO_SPACE}). */
public final class NoSpaceException extends TarnException {
    private static final long serialVersionUID = 1L;

    public NoSpaceException(String message) {
        super(ErrorCode.NO_SPACE, message);
    }
}
