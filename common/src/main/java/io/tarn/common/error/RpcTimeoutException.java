package io.tarn.common.error;

/** A call got no response within {@code tarn.rpc.timeout}; the message names the server. */
public final class RpcTimeoutException extends TarnException {
    private static final long serialVersionUID = 1L;

    public RpcTimeoutException(String message) {
        super(ErrorCode.TIMEOUT, message);
    }
}
