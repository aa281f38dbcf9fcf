package io.tarn.common.error;

/** The datanode holding a block is dead, unknown or lost the data; the message names it. */
public final class DatanodeUnavailableException extends TarnException {
    private static final long serialVersionUID = 1L;

    public DatanodeUnavailableException(ErrorCode code, String message) {
        super(code, message);
    }
}
