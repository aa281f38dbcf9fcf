package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.ErrorAnswer;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLException;

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
        SSLException tls = tlsFailure(why);
        if (tls != null) {
            return tlsRefused(remote, tls);
        }
        if (why instanceof TarnException busy && busy.code() == ErrorCode.SERVER_BUSY) {
            return new TarnException(ErrorCode.SERVER_BUSY, busy.getMessage());
        }
        return new TarnException(ErrorCode.CONNECTION_LOST, "connection to " + remote + " lost"
                + (why == null ? "" : ": " + why.getMessage()), why);
    }

    /** The SSLException behind {@code why}, if TLS failed (a handshake refused, an alert received), else null. */
    static SSLException tlsFailure(Throwable why) {
        for (Throwable t = why; t != null; t = t.getCause()) {
            if (t instanceof SSLException e) {
                return e;
            }
        }
        return null;
    }

    /** UNAUTHENTICATED: TLS with {@code remote} failed, saying why and what must agree. */
    static AuthenticationException tlsRefused(String remote, Throwable why) {
        String what = why instanceof SSLException && why.getMessage() != null ? why.getMessage()
                : "the connection was closed (" + why + "): is the server using TLS?";
        return new AuthenticationException("TLS handshake with " + remote + " failed: " + what + " ("
                + TarnKeys.SECURITY_TLS + " and its certificates must agree across the cluster)");
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
