package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.Identity;
import io.tarn.rpc.ForwardingRequest;
import io.tarn.rpc.RpcRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The audit log of namespace changes: one line per client mutation (create, mkdirs, delete,
 * rename, set attributes, append, set replication) with who asked, from where, what and the
 * outcome, success or the error code (a refusal included), on the logger {@value #LOGGER} at INFO:
 * {@code user=alice ip=10.0.0.7 cmd=RENAME path=/a dst=/b result=OK}. Lookups are not logged.
 * Refusals of the transport (unauthenticated peers, daemons' operations asked by users) go to the
 * same logger from the RPC layer. {@code tarn.namenode.audit = false} turns it off.
 */
final class AuditLog {
    static final String LOGGER = "tarn.audit";
    private static final Logger AUDIT = LoggerFactory.getLogger(LOGGER);

    private AuditLog() {
    }

    /** True for the operations the audit log records. */
    static boolean audited(int opcode) {
        return switch (opcode) {
            case Opcode.CREATE, Opcode.MKDIRS, Opcode.DELETE, Opcode.RENAME, Opcode.SET_ATTR, Opcode.APPEND,
                 Opcode.SET_REPLICATION -> true;
            default -> false;
        };
    }

    /**
     * {@code request}, answering through a wrapper that logs the outcome of operation {@code opcode}
     * (its own, or the mutation a ONCE call carries) whose body starts at {@code start} of
     * {@code body}; the request itself when that operation is not audited or the logger is off.
     */
    static RpcRequest wrap(RpcRequest request, int opcode, ByteBuf body, int start) {
        return audited(opcode) && AUDIT.isInfoEnabled() ? new Audited(request, opcode, body, start) : request;
    }

    /** One line; the paths come from the request's body, read again from its start. */
    static void log(RpcRequest request, int opcode, ByteBuf body, int start, String result) {
        String path;
        String dst = null;
        try {
            ByteBuf b = body.duplicate().readerIndex(start);
            path = Wire.readString(b);
            if (opcode == Opcode.RENAME) {
                dst = Wire.readString(b);
            }
        } catch (RuntimeException e) {
            path = "(malformed)";
        }
        Identity who = request.identity();
        StringBuilder line = new StringBuilder(96);
        line.append("user=").append(who.user().isEmpty() ? "-" : who.user());
        if (who.daemon() && who != Identity.UNAUTHENTICATED) {
            line.append(" daemon=true");
        }
        line.append(" ip=").append(address(request.remoteAddress())).append(" cmd=").append(Opcode.name(opcode))
                .append(" path=").append(path);
        if (dst != null) {
            line.append(" dst=").append(dst);
        }
        line.append(" result=").append(result);
        AUDIT.info(line.toString());
    }

    private static String address(SocketAddress a) {
        return a instanceof InetSocketAddress i && i.getAddress() != null ? i.getAddress().getHostAddress()
                : String.valueOf(a);
    }

    /**
     * Logs the outcome of the request it wraps when it is answered: inside the journal's wait for
     * durability (it is wrapped before that), so a change the journal then loses is logged failed.
     */
    private static final class Audited extends ForwardingRequest {
        private final int opcode;
        private final ByteBuf body;
        private final int start;

        Audited(RpcRequest request, int opcode, ByteBuf body, int start) {
            super(request);
            this.opcode = opcode;
            this.body = body;
            this.start = start;
        }

        @Override
        public void send(ByteBuf response) {
            log(request, opcode, body, start, "OK");
            request.send(response);
        }

        @Override
        public void sendWithPayload(ByteBuf response, ByteBuf payload) {
            log(request, opcode, body, start, "OK");
            request.sendWithPayload(response, payload);
        }

        @Override
        public void fail(ErrorCode code, String message) {
            fail(code, message, null);
        }

        @Override
        public void fail(ErrorCode code, String message, ErrorDetail detail) {
            log(request, opcode, body, start, code.name());
            request.fail(code, message, detail);
        }
    }
}
