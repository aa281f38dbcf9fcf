package io.tarn.common.error;

/** A non-recursive delete met a directory with entries ({@link ErrorCode#DIRECTORY_NOT_EMPTY}). */
public final class DirectoryNotEmptyException extends TarnException {
    private static final long serialVersionUID = 1L;

    public DirectoryNotEmptyException(String message) {
        super(ErrorCode.DIRECTORY_NOT_EMPTY, message);
    }
}
