package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.PayloadPlacement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts the byte stream into frames by their length field, without copying (frames are retained
 * slices of the read buffer). A frame longer than the limit, or a negative length, fails the
 * decoder; the handler then closes the connection with the reason.
 *
 * <p>Bytes that do not yet form a whole frame are kept by an adaptive cumulator: small pieces are
 * merged into one buffer (cheap to index, right for metadata frames), but once a partial frame is
 * large (block data) further reads are appended as components of a composite buffer, so a 1 MiB
 * frame arriving in 64 KiB reads is not copied, and re-copied as the merge buffer grows.
 *
 * <p>With a {@link FramePlacer} (a server whose handler is a {@link PayloadPlacement}, or a client
 * whose calls name memory for their answers), a frame whose payload is placed is not cumulated at
 * all: the bytes of its payload that came with its head are copied into the target, then
 * {@link PlacingRecvAllocator} has the channel read the rest straight into it, and the frame goes
 * on as a {@link PlacedFrame} (header and head only) once the payload is complete.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder implements PartialFrameBudget.Waiter {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    /** Partial frames beyond this size stop being merged. */
    static final int COMPOSE_ABOVE = 64 * 1024;

    private final long maxFrameTotal;
    /** Decides which payloads are placed, or null on connections that never place. */
    private final FramePlacer placer;
    /** The payload being placed, or null. */
    private Placing placing;
    /** True while the incomplete frame at the front was refused placement. */
    private boolean declined;
    /** Set once the stream failed to decode: nothing more is placed on this connection. */
    private boolean broken;
    /** Longest frame (with its length field) accepted until the connection authenticated; 0: no such bound. */
    private long unauthenticatedLimit;
    /** The server's bound on partial frames, or null (clients, and servers in tests without one). */
    private PartialFrameBudget budget;
    /** Told on the I/O thread when room was granted after a wait: decides whether to read again. */
    private Runnable resume;
    // ---- I/O thread only ----
    private ChannelHandlerContext ctx;
    /** Bytes reserved in {@link #budget} for the partial frame at the front; 0 when none. */
    private long charged;
    /** True while reading is stopped until the budget has room for the partial frame at the front. */
    private boolean waiting;
    /** The length of the frame waiting for room. */
    private long waitingFor;
    /** Set once the decoder left its connection: a late grant is given back at once. */
    private boolean gone;

    FrameDecoder(int maxFrame) {
        this(maxFrame, null);
    }

    FrameDecoder(int maxFrame, FramePlacer placer) {
        super(maxFrame + Frame.LENGTH_FIELD, Frame.LENGTH_OFFSET, Frame.LENGTH_FIELD, 0, 0, true);
        setCumulator(FrameDecoder::cumulate);
        this.maxFrameTotal = (long) maxFrame + Frame.LENGTH_FIELD;
        this.placer = placer;
    }

    private static ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation instanceof CompositeByteBuf
                || (long) cumulation.readableBytes() + in.readableBytes() > COMPOSE_ABOVE) {
            return COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
    }

    /**
     * Until {@link #authenticated()}, frames longer than {@code bytes} (with the length field) fail
     * the stream: a peer that has not proved anything cannot make the server buffer a large frame.
     */
    void limitUntilAuthenticated(int bytes) {
        this.unauthenticatedLimit = bytes;
    }

    /** The connection authenticated: frames up to {@code tarn.rpc.max.frame} from now on. */
    void authenticated() {
        this.unauthenticatedLimit = 0;
    }

    /**
     * Reserves room in {@code partialFrames} for each large frame before buffering it, and stops
     * reading while there is none; {@code onGranted} runs on the I/O thread once room was granted
     * after such a wait (it should let the channel read again when nothing else holds it back).
     */
    void chargeTo(PartialFrameBudget partialFrames, Runnable onGranted) {
        this.budget = partialFrames;
        this.resume = onGranted;
    }

    /** True while the connection is not read because the server's partial frames are at their bound. */
    boolean waitingForRoom() {
        return waiting;
    }

    /** The length of the frame waiting for room (with its length field); 0 when none waits. */
    long waitingFor() {
        return waiting ? waitingFor : 0;
    }

    /**
     * Reserves room for the partial frame of {@code total} bytes at the front the first time it is
     * seen; when there is none, stops reading the connection until {@link #granted} (small frames,
     * and a frame with room already, need nothing).
     */
    private void reserveRoom(ChannelHandlerContext context, long total) {
        if (budget == null || charged > 0 || waiting || total <= PartialFrameBudget.FREE_BELOW) {
            return;
        }
        this.ctx = context;
        if (budget.reserve(total, this)) {
            charged = total;
            return;
        }
        waiting = true;
        waitingFor = total;
        context.channel().config().setAutoRead(false);
    }

    /** Any thread: the budget reserved {@code bytes} for the frame that waited. */
    @Override
    public void granted(long bytes) {
        ChannelHandlerContext context = ctx;
        if (context.executor().inEventLoop()) {
            takeGrant(bytes);
        } else {
            context.executor().execute(() -> takeGrant(bytes));
        }
    }

    private void takeGrant(long bytes) {
        if (!waiting || gone) {
            budget.release(bytes); // the frame arrived whole meanwhile, or the connection ended
            return;
        }
        waiting = false;
        charged = bytes;
        resume.run();
    }

    /** The frame at the front arrived whole or went elsewhere: its reservation, or its wait, ends. */
    private void settle() {
        if (giveBack()) {
            resume.run();
        }
    }

    /** Releases the reservation of the frame at the front or leaves the line; true when it waited. */
    private boolean giveBack() {
        if (charged > 0) {
            long c = charged;
            charged = 0;
            budget.release(c);
        }
        if (waiting) {
            waiting = false;
            budget.cancel(this); // when already granted, takeGrant gives the room back
            return true;
        }
        return false;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        if (unauthenticatedLimit > 0 && in.readableBytes() >= Frame.LENGTH_FIELD) {
            long total = in.getUnsignedInt(in.readerIndex() + Frame.LENGTH_OFFSET) + Frame.LENGTH_FIELD;
            if (total > unauthenticatedLimit) {
                broken = true;
                in.skipBytes(in.readableBytes());
                throw new TooLongFrameException("a frame of " + total + " bytes before the connection authenticated "
                        + "(at most " + unauthenticatedLimit + " until then)");
            }
        }
        if ((placer != null || budget != null) && !broken && in.readableBytes() >= Frame.LENGTH_FIELD) {
            long total = in.getUnsignedInt(in.readerIndex() + Frame.LENGTH_OFFSET) + Frame.LENGTH_FIELD;
            if (total <= maxFrameTotal && in.readableBytes() < total) {
                // An incomplete frame never reaches the superclass, which would remember its length
                // across calls and then misread the stream once this frame is placed instead.
                if (placer != null && startPlacing(in, total)) {
                    settle(); // what was held of the frame went to its target
                } else {
                    reserveRoom(ctx, total);
                }
                return null;
            }
        }
        declined = false; // a whole frame, or none: the next incomplete one is asked about afresh
        Object frame;
        try {
            frame = super.decode(ctx, in);
        } catch (Exception e) {
            broken = true;
            throw e;
        }
        if (frame != null && (charged > 0 || waiting)) {
            settle();
        }
        return frame;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (waiting) {
            // The superclass would ask for one more read when a batch made no frame and reading is
            // off: exactly what a connection waiting for room must not get.
            discardSomeReadBytes();
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    /**
     * Starts placing the payload of the incomplete frame of {@code total} bytes at {@code in}'s
     * reader index when the placer wants it placed and its head is here; true when it did (then
     * every readable byte of {@code in} has been consumed).
     */
    private boolean startPlacing(ByteBuf in, long total) {
        int readable = in.readableBytes();
        if (readable < Frame.HEADER_LENGTH || declined) {
            return false;
        }
        int start = in.readerIndex();
        if (in.getByte(start + Frame.VERSION_OFFSET) != Frame.VERSION) {
            return false; // the usual path refuses it
        }
        int head = placer.headLength(in);
        if (head < 0 || readable < Frame.HEADER_LENGTH + head) {
            return false;
        }
        long payload = total - Frame.HEADER_LENGTH - head;
        if (payload < PayloadPlacement.MIN_PAYLOAD) {
            return false;
        }
        PayloadPlacement.Target target;
        try {
            target = placer.place(in, head, (int) payload);
        } catch (RuntimeException e) {
            // A bug in the check: receive the frame as usual, so its handler answers it.
            LOG.warn("placing the payload of a {} frame failed; receiving it as usual",
                    Opcode.name(Frame.opcode(in)), e);
            return false;
        }
        if (target == null) {
            declined = true; // not asked again for this frame, which is now received as usual
            return false;
        }
        ByteBuf memory = target.memory();
        int here = readable - Frame.HEADER_LENGTH - head;
        memory.writeBytes(in, start + Frame.HEADER_LENGTH + head, here);
        placing = new Placing(in.retainedSlice(start, Frame.HEADER_LENGTH + head), target, (int) payload, here);
        in.skipBytes(readable);
        return true;
    }

    /**
     * The buffer the channel's next read should go to: the placement target's memory (retained
     * for the read) while a payload is being placed and its target is valid, else null (read into
     * a buffer of the channel's allocator). Called by {@link PlacingRecvAllocator} before each read.
     */
    ByteBuf nextReadTarget() {
        Placing p = placing;
        if (p == null || p.dropping) {
            return null;
        }
        if (!p.target.stillValid()) {
            p.dropping = true;
            return null;
        }
        return p.memory.retain();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        Placing p = placing;
        if (p == null) {
            super.channelRead(ctx, msg);
            return;
        }
        ByteBuf buf = (ByteBuf) msg;
        if (buf == p.memory) {
            // The channel read straight into the target: its writer index has moved (and nothing
            // was dropped before, or the target would not have been handed out).
            p.received = buf.writerIndex();
            buf.release();
        } else {
            // A read into an ordinary buffer: copy what belongs to the payload, or drop it.
            int n = (int) Math.min(buf.readableBytes(), (long) p.length - p.received);
            if (!p.dropping && p.target.stillValid()) {
                p.memory.writeBytes(buf, n);
            } else {
                p.dropping = true;
                buf.skipBytes(n);
            }
            p.received += n;
            if (p.received == p.length) {
                finish(ctx, p);
                if (buf.isReadable()) {
                    super.channelRead(ctx, buf); // the next frames
                } else {
                    buf.release();
                }
                return;
            }
            buf.release();
        }
        if (p.received == p.length) {
            finish(ctx, p);
        }
    }

    private void finish(ChannelHandlerContext ctx, Placing p) {
        placing = null;
        int placed = p.memory.writerIndex();
        p.memory.release();
        ctx.fireChannelRead(new PlacedFrame(p.head, placed));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        dropPlacing();
        leave();
        super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        dropPlacing();
        leave();
        super.handlerRemoved0(ctx);
    }

    /** The decoder leaves its connection: what it reserved goes back, and it waits no more. */
    private void leave() {
        gone = true;
        if (budget != null) {
            giveBack();
        }
    }

    /** The connection ended during a payload: the request is never handled, so never answered. */
    private void dropPlacing() {
        Placing p = placing;
        if (p != null) {
            placing = null;
            p.head.release();
            p.memory.release();
        }
    }

    /** A frame whose payload was placed: its header and head, and how many payload bytes were placed. */
    record PlacedFrame(ByteBuf frame, int placedBytes) {
    }

    /** The state of one payload being placed. */
    private static final class Placing {
        final ByteBuf head;
        final PayloadPlacement.Target target;
        final ByteBuf memory;
        final int length;
        /** Payload bytes read from the socket so far, placed (the memory's writer index) or dropped. */
        int received;
        /** True once the target turned invalid: the rest of the payload is dropped. */
        boolean dropping;

        Placing(ByteBuf head, PayloadPlacement.Target target, int length, int received) {
            this.head = head;
            this.target = target;
            this.memory = target.memory();
            this.length = length;
            this.received = received;
        }
    }
}
