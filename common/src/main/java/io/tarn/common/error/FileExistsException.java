package io.tarn.common.error;

/** The target path already exists ({@link ErrorCode#FILE_EXISTS}). */
public final class FileExistsException extends TarnException {
    private static final long serialVersionUID = 1L;

    public FileExistsException(String message) {
        super(ErrorCode.FILE_EXISTS, message);
    }
}
