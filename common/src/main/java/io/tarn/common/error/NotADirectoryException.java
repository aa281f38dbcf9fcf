package io.tarn.common.error;

/** A path component that must be a directory is a file ({@link ErrorCode#NOT_A_DIRECTORY}). */
public final class NotADirectoryException extends TarnException {
    private static final long serialVersionUID = 1L;

    public NotADirectoryException(String message) {
        super(ErrorCode.NOT_A_DIRECTORY, message);
    }
}
