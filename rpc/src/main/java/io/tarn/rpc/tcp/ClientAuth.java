package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.SecretHandshake;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The client's side of a new connection's {@link SecretHandshake}: sends {@code AUTH_HELLO} when the
 * connection opens, checks the server's proof, sends its own and leaves the pipeline; {@link #done()}
 * then succeeds and the client sends its calls. It fails with an {@link AuthenticationException}
 * saying what to configure when the server refuses or cannot prove it holds the cluster's secret, and
 * with {@code CONNECTION_LOST} when the connection closes or the server does not answer within the
 * connect timeout. Runs on the connection's I/O thread.
 */
final class ClientAuth extends ChannelInboundHandlerAdapter {
    private final SecretHandshake.Client handshake;
    private final String remote;
    private final long timeoutMillis;
    private Promise<Void> done;
    private ScheduledFuture<?> timeout;

    ClientAuth(SecretHandshake.Client handshake, String remote, long timeoutMillis) {
        this.handshake = handshake;
        this.remote = remote;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        done = ctx.executor().newPromise();
    }

    /** Succeeds once the connection authenticated; fails with the reason it did not. */
    Future<Void> done() {
        return done;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ByteBuf hello = ctx.alloc().ioBuffer(128);
        int start = Frame.begin(hello, Opcode.AUTH_HELLO, 0, 0, 0);
        SecretHandshake.writeHello(hello, handshake.hello());
        Frame.finish(hello, start);
        ctx.writeAndFlush(hello, ctx.voidPromise());
        timeout = ctx.executor().schedule(() -> fail(ctx, new TarnException(ErrorCode.CONNECTION_LOST,
                "the server at " + remote + " did not answer the authentication within " + timeoutMillis
                        + " ms (tarn.rpc.connect.timeout)")), timeoutMillis, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ReferenceCountUtil.release(msg);
            fail(ctx, new AuthenticationException("the server at " + remote + " sent data before it authenticated"));
            return;
        }
        try {
            if (frame.readableBytes() < Frame.HEADER_LENGTH || (Frame.flags(frame) & Frame.FLAG_RESPONSE) == 0
                    || Frame.opcode(frame) != Opcode.AUTH_HELLO) {
                fail(ctx, new AuthenticationException("the server at " + remote + " did not answer the authentication "
                        + "as a Tarn server does: is it one?"));
                return;
            }
            int status = Frame.status(frame);
            ByteBuf body = frame.skipBytes(Frame.HEADER_LENGTH);
            if (status != ErrorCode.OK.code()) {
                String message;
                try {
                    message = Wire.readString(body);
                } catch (RuntimeException e) {
                    message = ErrorCode.of(status).description();
                }
                if (status == ErrorCode.SERVER_BUSY.code()) {
                    fail(ctx, new TarnException(ErrorCode.SERVER_BUSY, message));
                    return;
                }
                fail(ctx, new AuthenticationException(status == ErrorCode.UNAUTHENTICATED.code() ? message
                        : "the server at " + remote + " did not take part in authentication (it answered: " + message
                        + "): it may be a Tarn release without it"));
                return;
            }
            SecretHandshake.Challenge challenge;
            try {
                challenge = SecretHandshake.readChallenge(body);
            } catch (RuntimeException e) {
                fail(ctx, new AuthenticationException("the server at " + remote + " answered the authentication with "
                        + "a malformed frame: " + e.getMessage()));
                return;
            }
            try {
                sendProof(ctx, handshake.answer(challenge, remote), false);
            } catch (AuthenticationException e) {
                // Our proof still goes out, then the connection closes: so the server learns of a peer
                // with the wrong key and logs it. It is worth nothing for any other exchange.
                cancelTimeout();
                done.tryFailure(e);
                sendProof(ctx, handshake.proofFor(challenge), true);
                return;
            }
            cancelTimeout();
            ctx.pipeline().remove(this);
            done.trySuccess(null);
        } finally {
            frame.release();
        }
    }

    private static void sendProof(ChannelHandlerContext ctx, byte[] proof, boolean thenClose) {
        ByteBuf out = ctx.alloc().ioBuffer(Frame.HEADER_LENGTH + proof.length);
        int start = Frame.begin(out, Opcode.AUTH_PROOF, 0, 0, 0);
        SecretHandshake.writeProof(out, proof);
        Frame.finish(out, start);
        if (thenClose) {
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(out, ctx.voidPromise());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimeout();
        done.tryFailure(new TarnException(ErrorCode.CONNECTION_LOST, "the server at " + remote
                + " closed the connection during authentication"));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause instanceof IOException ? new TarnException(ErrorCode.CONNECTION_LOST, "connection to "
                + remote + " failed during authentication: " + cause.getMessage(), cause) : cause);
    }

    private void fail(ChannelHandlerContext ctx, Throwable why) {
        cancelTimeout();
        done.tryFailure(why);
        ctx.close();
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }
}
