package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.TimeUnit;

/**
 * A server's last frame on a connection it refuses (an error saying why), delivered so the peer
 * can read it: closing at once while the peer's requests are still arriving makes the kernel reset
 * the connection, and a reset throws away the unread answer at the peer. So the server stops serving
 * the connection (its handlers give way to one that discards what still arrives), sends the frame,
 * ends its side of the stream, and closes once the peer closes or after {@link #LINGER_MS}.
 */
final class LastWord {
    /** How long a refused connection may stay half-open waiting for its peer to close. */
    static final long LINGER_MS = 1_000;

    private LastWord() {
    }

    /**
     * Sends {@code frame} (owned from now on) on {@code channel} and closes it as soon as it is
     * written, without waiting for the peer: for connections whose descriptor the server needs back
     * at once. A peer that is still sending may get a reset instead of the frame.
     */
    static void sendAndClose(Channel channel, ByteBuf frame) {
        ChannelPipeline pipeline = channel.pipeline();
        while (pipeline.last() != null) {
            pipeline.removeLast(); // decoders give back what they buffered
        }
        channel.writeAndFlush(frame).addListener(ChannelFutureListener.CLOSE);
    }

    /** Sends {@code frame} (owned from now on) as the last word on {@code channel}, then closes it. */
    static void send(Channel channel, ByteBuf frame) {
        if (!channel.isActive() || !(channel instanceof DuplexChannel duplex)) {
            channel.writeAndFlush(frame).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ChannelPipeline pipeline = channel.pipeline();
        while (pipeline.last() != null) {
            pipeline.removeLast();
        }
        pipeline.addLast("discard", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        });
        channel.config().setAutoRead(true);
        channel.writeAndFlush(frame).addListener(done -> {
            if (done.isSuccess()) {
                duplex.shutdownOutput();
            } else {
                channel.close();
            }
        });
        channel.eventLoop().schedule(() -> channel.close(), LINGER_MS, TimeUnit.MILLISECONDS);
    }
}
