package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.ErrorAnswer;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The errors a call of a {@link TcpClient} or its {@link DirectLane} ends with, so that both paths
 * word them alike. Static and stateless; called on whatever thread fails the call.
 */
final class CallErrors {
    private CallErrors() {
    }

    /** The error of a call that got no answer within {@code tarn.rpc.timeout}. */
    static IOException timeout(String remote, int opcode, long timeoutNanos) {
        return TarnException.of(ErrorCode.TIMEOUT, "no response from " + remote + " to " + Opcode.name(opcode)
                + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (tarn.rpc.timeout)");
    }

    /** The error of a call whose connection was lost before its answer; {@code why} may be null. */
    static TarnException lost(String remote, Throwable why) {
        if (why instanceof AuthenticationException refused) {
            return new AuthenticationException(refused.getMessage());
        }
        if (why instanceof TarnException busy && busy.code() == ErrorCode.SERVER_BUSY) {
            return new TarnException(ErrorCode.SERVER_BUSY, busy.getMessage());
        }
        return new TarnException(ErrorCode.CONNECTION_LOST, "connection to " + remote + " lost"
                + (why == null ? "" : ": " + why.getMessage()), why);
    }

    /** The error of a call made after its client was closed (or while it closed). */
    static TarnException closed(String remote) {
        return new TarnException(ErrorCode.CONNECTION_LOST, "client for " + remote + " is closed");
    }

    /** The typed error an error answer stands for: its message, or the code's description, and its detail. */
    static IOException answer(ErrorCode code, ByteBuf body, String remote) {
        String message;
        ErrorDetail detail = null;
        try {
            message = Wire.readString(body);
            detail = ErrorAnswer.readDetail(body);
        } catch (RuntimeException e) {
            message = "";
        }
        return TarnException.of(code, message.isEmpty() ? code.description() + " (" + remote + ")" : message,
                detail);
    }
}
