package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.Identity;
import io.tarn.rpc.RpcHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayDeque;
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
    private final TransportSecurity security;
    /** The handshake under way; null on a server that does not authenticate, and once done. */
    private ServerAuth auth;
    /** Who the peer is; null until it authenticated. Written and read on the I/O thread only. */
    private Identity identity;
    /** The connection's frame decoder, told when the peer authenticated; null in tests without one. */
    private FrameDecoder frames;
    private final int maxInflight;
    // ---- I/O thread only ----
    private ChannelHandlerContext ctx;
    /** Requests of this connection not answered yet (counted by {@link TcpRequest}). */
    private int unanswered;
    /** Frames read while {@link #maxInflight} requests were unanswered, served as answers go out. */
    private ArrayDeque<Object> held;
    private boolean drainScheduled;
    /** True while reading is paused because of the in-flight cap (not the peer's unread answers). */
    private boolean pausedByCap;
    private final Runnable drainTask = this::drainHeld;

    ServerHandler(TcpServer server, RpcHandler handler, TransportSecurity security, int maxInflight) {
        this(server, handler, server.protocolErrors(), security, maxInflight);
    }

    ServerHandler(TcpServer server, RpcHandler handler, LogLimiter protocolErrors, TransportSecurity security,
            int maxInflight) {
        this.server = server;
        this.handler = handler;
        this.protocolErrors = protocolErrors;
        this.security = security;
        this.maxInflight = maxInflight;
        if (security.on()) {
            this.auth = new ServerAuth(security.newServer(), server == null ? new LogLimiter() : server.refusals(),
                    String.valueOf(server));
        } else {
            this.identity = Identity.UNAUTHENTICATED;
        }
    }

    /** The connection's frame decoder, whose bound on frames it lifts once the peer authenticated. */
    void frames(FrameDecoder decoder) {
        this.frames = decoder;
    }

    /** I/O thread: a request of this connection arrived. */
    void requestArrived() {
        unanswered++;
    }

    /**
     * I/O thread: a request of this connection was answered. When frames wait because too many
     * requests were unanswered, or reading paused for that reason, a task serves them and reads
     * again (not this call, which may run inside a request's handler). A pause for the peer's unread
     * answers is {@link #channelWritabilityChanged}'s to end: no task per answer then.
     */
    void requestAnswered() {
        unanswered--;
        if (pausedByCap && !drainScheduled && unanswered < maxInflight) {
            drainScheduled = true;
            ctx.executor().execute(drainTask);
        }
    }

    /** Requests not answered yet (for tests). */
    int unanswered() {
        return unanswered;
    }

    /** Serves held frames while fewer than the limit are unanswered; reads again once none is held. */
    private void drainHeld() {
        drainScheduled = false;
        ChannelHandlerContext c = ctx;
        while (held != null && !held.isEmpty() && unanswered < maxInflight && c.channel().isActive()) {
            serve(c, held.poll());
        }
        if (pacer.batchEndedShouldFlush()) {
            c.flush();
        }
        updateAutoRead(c);
    }

    /**
     * I/O thread: the frame decoder got room for the partial frame it waited with; reading goes on
     * unless something else holds it back.
     */
    void roomGranted() {
        if (ctx != null) {
            updateAutoRead(ctx);
        }
    }

    /**
     * Reads while the peer drains its answers, the requests it left unanswered are few enough, and
     * the frame decoder does not wait for room among the server's partial frames.
     */
    private void updateAutoRead(ChannelHandlerContext c) {
        pausedByCap = held != null && !held.isEmpty() || unanswered >= maxInflight;
        boolean read = c.channel().isWritable() && !pausedByCap && (frames == null || !frames.waitingForRoom());
        if (c.channel().config().isAutoRead() != read) {
            c.channel().config().setAutoRead(read);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
    }

    /** True once the peer authenticated (at once on a server that does not authenticate). I/O thread only. */
    boolean authenticated() {
        return identity != null;
    }

    /** The peer's identity; null before it authenticated. */
    Identity identity() {
        return identity;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (auth != null) {
            auth.startClock(ctx, this, security.authTimeoutNanos);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (unanswered >= maxInflight || held != null && !held.isEmpty()) {
            if (held == null) {
                held = new ArrayDeque<>();
            }
            held.add(msg); // served in order as answers go out; nothing more is read meanwhile
            updateAutoRead(ctx);
            return;
        }
        serve(ctx, msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (held != null) {
            Object msg;
            while ((msg = held.poll()) != null) {
                ReferenceCountUtil.release(msg instanceof FrameDecoder.PlacedFrame p ? p.frame() : msg);
            }
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (frames != null && frames.waitingForRoom()) {
                refuseForRoom(ctx);
                return;
            }
            if (unanswered == 0 && (held == null || held.isEmpty())) {
                LOG.debug("closing connection from {}: idle for tarn.rpc.idle.timeout", TcpTransport.describe(
                        ctx.channel()));
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * The connection waited a whole {@code tarn.rpc.idle.timeout} for room to receive a frame: other
     * connections hold the server's partial frames all that time. Told SERVER_BUSY and closed.
     */
    private void refuseForRoom(ChannelHandlerContext ctx) {
        PartialFrameBudget budget = server.partialFrames();
        long left = server.refusals().tryLog();
        if (left >= 0) {
            LOG.warn("closing connection from {}: its frame of {} bytes waited tarn.rpc.idle.timeout for room among "
                    + "the partial frames the server holds ({}){}", TcpTransport.describe(ctx.channel()),
                    frames.waitingFor(), budget, left == 0 ? "" : " (" + left + " more refusals since the last line, "
                            + "not logged)");
        }
        TcpRequest.sendErrorAndClose(ctx.channel(), ErrorCode.SERVER_BUSY, "the server at " + server.localAddress()
                + " had no room for a frame of " + frames.waitingFor() + " bytes within tarn.rpc.idle.timeout: "
                + "other connections held the " + budget.limit() + " bytes of frames still arriving that "
                + "tarn.rpc.server.max.partial.bytes allows; try again later");
    }

    private void serve(ChannelHandlerContext ctx, Object msg) {
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
        Identity who = identity;
        if (who == null) {
            authenticate(ctx, frame);
            return;
        }
        int opcode = Frame.opcode(frame);
        if ((!who.daemon() || opcode == Opcode.AUTH_HELLO || opcode == Opcode.AUTH_PROOF)
                && refused(ctx, frame, who, opcode)) {
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

    /** A frame of a connection that has not authenticated yet: the handshake's. */
    private void authenticate(ChannelHandlerContext ctx, ByteBuf frame) {
        try {
            Identity who = auth.onFrame(ctx, frame);
            if (who != null) {
                identity = who;
                auth = null;
                if (frames != null) {
                    frames.authenticated();
                }
                if (server != null) {
                    server.authenticated(ctx.channel());
                }
            }
        } catch (MalformedMessageException e) {
            closeMalformed(ctx, "malformed authentication frame: " + e.getMessage());
        }
    }

    /**
     * Refuses (and releases) a frame {@code who} may not send: a daemons' operation from a user, or a
     * handshake frame where none is due. False when the frame may be served.
     */
    private boolean refused(ChannelHandlerContext ctx, ByteBuf frame, Identity who, int opcode) {
        Audience audience = Opcode.audience(opcode);
        if (audience == Audience.HANDSHAKE) {
            long id = Frame.requestId(frame);
            frame.release();
            if (!security.on()) {
                TcpRequest.sendErrorAndClose(ctx.channel(), opcode, id, ErrorCode.UNAUTHENTICATED,
                        "the server at " + server + " does not authenticate (its tarn.security.authentication = "
                                + "none), so this client, which requires it, will not use it: set "
                                + "tarn.security.authentication alike on both");
            } else {
                closeMalformed(ctx, Opcode.name(opcode) + " on a connection that has authenticated already");
            }
            return true;
        }
        if (audience == null || !audience.daemonsOnly()) {
            return false;
        }
        TcpRequest request = new TcpRequest(this, ctx.channel(), frame, -1);
        ServerAuth.AUDIT.info("user={} ip={} cmd={} result=ACCESS_DENIED", who.user(),
                TcpTransport.hostOf(ctx.channel()), Opcode.name(opcode));
        long left = server == null ? -1 : server.refusals().tryLog();
        if (left >= 0) {
            LOG.warn("refused {} from {}: {} did not authenticate with the cluster secret{}", Opcode.name(opcode),
                    TcpTransport.describe(ctx.channel()), who, left == 0 ? ""
                            : " (" + left + " more refusals since the last line, not logged)");
        }
        request.fail(ErrorCode.ACCESS_DENIED, Opcode.name(opcode) + " is for Tarn's daemons only, and " + who
                + " authenticated with a client or user key; daemons authenticate with the cluster secret");
        return true;
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
        updateAutoRead(ctx);
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
