package io.tarn.common.error;

import java.io.FileNotFoundException;

/** A path (or its parent) does not exist; a {@link FileNotFoundException} as Java and Hadoop callers expect. */
public final class TarnFileNotFoundException extends FileNotFoundException implements TarnError {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public TarnFileNotFoundException(ErrorCode code, String message) {
        super(message == null || message.isEmpty() ? code.description() : message);
        this.code = code;
    }

    @Override
    public ErrorCode code() {
        return code;
    }
}
