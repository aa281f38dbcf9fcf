package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.Identity;
import io.tarn.common.security.SecretHandshake;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * The server's side of one connection's {@link SecretHandshake}, on an authenticating server: it
 * answers {@code AUTH_HELLO}, checks {@code AUTH_PROOF} and then hands the connection's identity to
 * its {@link ServerHandler}. Any other frame before that is answered {@code UNAUTHENTICATED} and the
 * connection closed; so is a wrong proof, and a connection that has not authenticated within
 * {@code tarn.security.auth.timeout}. Each refusal is logged with the peer's address and the user it
 * claimed, at most {@link LogLimiter#PER_WINDOW} lines per window per server. Runs on the
 * connection's I/O thread.
 */
final class ServerAuth {
    private static final Logger LOG = LoggerFactory.getLogger(ServerAuth.class);
    /** The audit log (as the namenode's): refused connections and operations, one line each. */
    static final Logger AUDIT = LoggerFactory.getLogger("tarn.audit");
    /** Longest frame a server reads before the connection authenticated: the handshake's are far shorter. */
    static final int MAX_FRAME = 4096;

    private final SecretHandshake.Server handshake;
    private final LogLimiter refusals;
    private final String server;

    ServerAuth(SecretHandshake.Server handshake, LogLimiter refusals, String server) {
        this.handshake = handshake;
        this.refusals = refusals;
        this.server = server;
    }

    /** Closes the connection unless it authenticated within {@code timeoutNanos}. */
    void startClock(ChannelHandlerContext ctx, ServerHandler owner, long timeoutNanos) {
        ctx.executor().schedule(() -> {
            if (!owner.authenticated() && ctx.channel().isActive()) {
                refuse(ctx.channel(), 0, 0, "did not authenticate within "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (tarn.security.auth.timeout)");
            }
        }, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * One frame (header checked) of a connection not authenticated yet; takes ownership of it.
     *
     * @return the identity once the proof checked out, else null
     * @throws MalformedMessageException for a handshake frame whose body is malformed
     */
    Identity onFrame(ChannelHandlerContext ctx, ByteBuf frame) {
        Channel ch = ctx.channel();
        try {
            int opcode = Frame.opcode(frame);
            long id = Frame.requestId(frame);
            ByteBuf body = frame.skipBytes(Frame.HEADER_LENGTH);
            if (opcode == Opcode.AUTH_HELLO && handshake.hello() == null) {
                SecretHandshake.Hello hello = SecretHandshake.readHello(body);
                SecretHandshake.Challenge challenge;
                try {
                    challenge = handshake.challenge(hello);
                } catch (AuthenticationException e) {
                    refuse(ch, opcode, id, e.getMessage());
                    return null;
                }
                ByteBuf answer = ch.alloc().ioBuffer(Frame.HEADER_LENGTH + 2 * SecretHandshake.NONCE_BYTES);
                int start = Frame.begin(answer, opcode, id, Frame.FLAG_RESPONSE, ErrorCode.OK.code());
                SecretHandshake.writeChallenge(answer, challenge);
                Frame.finish(answer, start);
                ch.writeAndFlush(answer, ch.voidPromise());
                return null;
            }
            if (opcode == Opcode.AUTH_PROOF && handshake.hello() != null) {
                byte[] proof = SecretHandshake.readProof(body);
                try {
                    Identity who = handshake.verify(proof);
                    LOG.debug("{} authenticated as {} at {}", TcpTransport.describe(ch), who, server);
                    return who;
                } catch (AuthenticationException e) {
                    refuse(ch, opcode, id, e.getMessage());
                    return null;
                }
            }
            refuse(ch, opcode, id, Opcode.name(opcode) + " before authenticating: this server authenticates every "
                    + "connection (tarn.security.authentication = secret); set tarn.security.authentication = secret "
                    + "and tarn.security.secret.file to a key of this cluster (docs/security.md)");
            return null;
        } finally {
            frame.release();
        }
    }

    private void refuse(Channel ch, int opcode, long id, String why) {
        long left = refusals.tryLog();
        if (left >= 0) {
            SecretHandshake.Hello hello = handshake.hello();
            AUDIT.info("user={} ip={} cmd={} result=UNAUTHENTICATED", hello == null ? "-" : hello.user(),
                    TcpTransport.hostOf(ch), opcode == 0 ? "CONNECT" : Opcode.name(opcode));
            LOG.warn("refused connection from {}{} to {}: {}{}", TcpTransport.describe(ch),
                    hello == null ? "" : " (user " + hello.user() + ", " + hello.kind().word() + " key)", server, why,
                    left == 0 ? "" : " (" + left + " more refusals since the last line, not logged)");
        }
        TcpRequest.sendErrorAndClose(ch, opcode, id, ErrorCode.UNAUTHENTICATED, why);
    }
}
