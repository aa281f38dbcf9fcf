package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Server side of one connection: checks each frame's header, hands the request to the
 * {@link RpcHandler}, and flushes the responses of one read batch once.
 *
 * <p>A frame that cannot be a request (too short, wrong version, response flag set) or a body the
 * handler finds malformed closes this connection after logging why; other connections are not
 * affected. Reading pauses while the peer does not drain its responses (back-pressure).
 */
final class ServerHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ServerHandler.class);

    private final TcpServer server;
    private final RpcHandler handler;
    private final LogLimiter protocolErrors;
    /** When responses written while a read batch is handled are flushed: at its end at the latest. */
    final FlushPacer pacer = new FlushPacer();

    ServerHandler(TcpServer server, RpcHandler handler) {
        this(server, handler, server.protocolErrors());
    }

    ServerHandler(TcpServer server, RpcHandler handler, LogLimiter protocolErrors) {
        this.server = server;
        this.handler = handler;
        this.protocolErrors = protocolErrors;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame;
        int placed = -1;
        if (msg instanceof FrameDecoder.PlacedFrame p) {
            // Checked like any frame by the decoder before it started placing the payload.
            frame = p.frame();
            placed = p.placedBytes();
        } else {
            frame = (ByteBuf) msg;
        }
        pacer.read();
        String problem = checkHeader(frame);
        if (problem != null) {
            int version = frame.readableBytes() > Frame.VERSION_OFFSET ? Frame.version(frame) : -1;
            frame.release();
            if (version >= 0 && version != Frame.VERSION) {
                TcpRequest.sendErrorAndClose(ctx.channel(), ErrorCode.UNSUPPORTED_VERSION, problem);
            }
            closeMalformed(ctx, problem);
            return;
        }
        TcpRequest request = new TcpRequest(this, ctx.channel(), frame, placed);
        try {
            handler.handle(request);
        } catch (MalformedMessageException e) {
            request.failIfOpen(ErrorCode.MALFORMED_REQUEST, Opcode.name(request.opcode()) + ": " + e.getMessage());
            closeMalformed(ctx, "malformed " + Opcode.name(request.opcode()) + " body: " + e.getMessage());
        } catch (Exception | AssertionError e) {
            LOG.warn("{} from {} failed", Opcode.name(request.opcode()), TcpTransport.describe(ctx.channel()), e);
            request.failIfOpen(ErrorCode.INTERNAL, Opcode.name(request.opcode()) + " failed on the server: " + e);
        }
    }

    private static String checkHeader(ByteBuf frame) {
        if (frame.readableBytes() < Frame.HEADER_LENGTH) {
            return "frame of " + frame.readableBytes() + " bytes is shorter than a header";
        }
        int version = Frame.version(frame);
        if (version != Frame.VERSION) {
            return "protocol version " + version + " is not supported (this server speaks " + Frame.VERSION + ")";
        }
        if ((Frame.flags(frame) & Frame.FLAG_RESPONSE) != 0) {
            return "a response frame was sent to a server";
        }
        return null;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (pacer.batchEndedShouldFlush()) {
            ctx.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // Stop reading requests while responses pile up unread; resume when the peer catches up.
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException) {
            closeMalformed(ctx, cause.getMessage());
        } else if (cause instanceof IOException) {
            LOG.debug("connection from {} failed: {}", TcpTransport.describe(ctx.channel()), cause.toString());
            ctx.close();
        } else {
            LOG.warn("connection from {} failed, closing it", TcpTransport.describe(ctx.channel()), cause);
            ctx.close();
        }
    }

    private void closeMalformed(ChannelHandlerContext ctx, String reason) {
        if (ctx.channel().isActive()) {
            long left = protocolErrors.tryLog();
            if (left >= 0) {
                LOG.warn("closing connection from {} to {}: malformed frame: {}{}",
                        TcpTransport.describe(ctx.channel()), server, reason, left == 0 ? ""
                                : " (" + left + " more such connection(s) closed since the last line, not logged: at "
                                + "most " + LogLimiter.PER_WINDOW + " lines per "
                                + TimeUnit.NANOSECONDS.toSeconds(LogLimiter.WINDOW_NANOS) + " s)");
            }
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
