package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.PayloadPlacement;
import io.tarn.rpc.RpcClient.ResponseTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * Reads the answers of one connection of a {@link TcpClient} and completes the calls they are for:
 * it matches each answer to its call by request id ({@link CallTable}), frees the call's slot and
 * completes its future, and places OK answers whose call names memory for them ({@link
 * io.tarn.rpc.RpcClient#callInto}) straight into that memory ({@link FramePlacer}).
 *
 * <p>One per connection, made when it opens, called on the client's event loop only (by the
 * connection's pipeline and its {@link FrameDecoder}). It guarantees that every answer frame it is
 * given is released, that an answer whose call is no longer in flight (timed out, or its
 * connection was replaced) is dropped, and that a call's slot is free before its future completes,
 * so that a callback chaining the next call on this I/O thread finds one; when calls wait in line
 * for a slot ({@link CallSlots}), the slot goes to them once the answer's callbacks ran. A lost
 * connection or a malformed answer is handed to the client ({@link TcpClient#onClosed}), which
 * fails or resends the calls in flight.
 */
final class AnswerHandler extends ChannelInboundHandlerAdapter implements FramePlacer {
    private static final Logger LOG = LoggerFactory.getLogger(AnswerHandler.class);

    private final TcpClient client;
    private final CallTable table;
    private final CallSlots slots;
    private final FlushPacer pacer;
    private final String remote;
    private Throwable failure;

    AnswerHandler(TcpClient client, CallTable table, CallSlots slots, FlushPacer pacer, String remote) {
        this.client = client;
        this.table = table;
        this.slots = slots;
        this.pacer = pacer;
        this.remote = remote;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        pacer.read();
        if (msg instanceof FrameDecoder.PlacedFrame placed) {
            onPlaced(placed);
        } else {
            onResponse(ctx.channel(), (ByteBuf) msg);
        }
        if (slots.hasWaiting()) {
            client.slotsFreed(); // the slot this answer freed goes to the oldest call waiting for one
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.fireChannelReadComplete();
        if (pacer.batchEndedShouldFlush()) {
            ctx.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        client.onClosed(ctx.channel(), failure);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failure = cause instanceof IOException || cause instanceof DecoderException
                ? cause : new IOException(cause.toString(), cause);
        LOG.debug("connection to {} failed: {}", remote, cause.toString());
        ctx.close();
    }

    /** One response frame read from {@code ch} (which may no longer be the client's current channel). */
    private void onResponse(Channel ch, ByteBuf frame) {
        try {
            if (frame.readableBytes() < Frame.HEADER_LENGTH || (Frame.flags(frame) & Frame.FLAG_RESPONSE) == 0) {
                LOG.warn("closing connection to {}: malformed response frame", remote);
                ch.close();
                return;
            }
            long id = Frame.requestId(frame);
            PendingCall<?> call = table.settle(id);
            if (call == null) {
                int status = Frame.status(frame);
                if (id == 0 && status != ErrorCode.OK.code()) {
                    // The server refused the connection (its authentication proof, or one connection too
                    // many) and closes it: the calls sent meanwhile fail with its reason.
                    ByteBuf body = frame.skipBytes(Frame.HEADER_LENGTH);
                    failure = CallErrors.answer(ErrorCode.of(status), body, remote);
                }
                return; // timed out earlier; the late answer is dropped
            }
            call.dropKept();
            call.dropPlaced(); // named memory for an answer that came the usual way
            int status = Frame.status(frame);
            // The frame is this response's own slice of the read buffer: step over the header instead
            // of slicing again (one object less per call).
            ByteBuf body = frame.skipBytes(Frame.HEADER_LENGTH);
            if (status != ErrorCode.OK.code()) {
                ErrorCode code = ErrorCode.of(status);
                IOException error = CallErrors.answer(code, body, remote);
                call.fail(error, slots);
                if (code == ErrorCode.MALFORMED_REQUEST || code == ErrorCode.UNSUPPORTED_VERSION) {
                    // The server closes the connection after these; let the next call open a fresh one now.
                    client.onClosed(ch, new IOException("server rejected a request: " + error.getMessage()));
                    ch.close();
                }
            } else {
                // The slot is free before the future completes: a callback chaining the next call
                // on this I/O thread must find it (it cannot wait for one).
                call.decodeAndComplete(body, remote, slots);
            }
        } finally {
            frame.release();
        }
    }

    /**
     * An OK answer whose body was received into the memory its call named. Fewer bytes than the
     * body were placed only when the call was given up meanwhile (then it is settled and no longer
     * in the table) or its future was cancelled.
     */
    private void onPlaced(FrameDecoder.PlacedFrame placed) {
        ByteBuf header = placed.frame();
        try {
            PendingCall<?> call = table.settle(Frame.requestId(header));
            if (call == null) {
                return; // timed out earlier; its memory was released then
            }
            call.dropKept();
            ByteBuf memory = call.placed;
            call.placed = null;
            long bodyLength = header.getUnsignedInt(header.readerIndex() + Frame.LENGTH_OFFSET) + Frame.LENGTH_FIELD
                    - Frame.HEADER_LENGTH;
            if (memory == null || placed.placedBytes() != bodyLength) {
                if (memory != null) {
                    memory.release();
                }
                call.fail(new TarnException(ErrorCode.CONNECTION_LOST, "the answer to " + Opcode.name(call.opcode)
                        + " from " + remote + " was dropped: the call was cancelled"), slots);
                return;
            }
            memory.writerIndex(memory.writerIndex() + placed.placedBytes());
            try {
                call.decodeAndComplete(memory, remote, slots);
            } finally {
                memory.release();
            }
        } finally {
            header.release();
        }
    }

    /**
     * Places OK answers whose call names memory for them. Asks a call's {@link ResponseTarget}
     * once; the memory it names is the call's until the call is settled.
     */
    @Override
    public int headLength(ByteBuf frame) {
        return (Frame.flags(frame) & Frame.FLAG_RESPONSE) != 0 && Frame.status(frame) == ErrorCode.OK.code()
                ? 0 : -1;
    }

    @Override
    public PayloadPlacement.Target place(ByteBuf frame, int headLength, int payloadLength) {
        PendingCall<?> call = table.tracked(Frame.requestId(frame));
        if (call == null || call.target == null || call.future.isDone()) {
            return null;
        }
        ResponseTarget target = call.target;
        call.target = null; // asked at most once
        ByteBuf memory = target.claim(payloadLength);
        if (memory == null) {
            return null;
        }
        if (memory.isReadable() || memory.writableBytes() < payloadLength) {
            String what = memory.readableBytes() + " readable and " + memory.writableBytes() + " writable bytes";
            memory.release();
            throw new IllegalStateException("memory named for an answer of " + payloadLength + " bytes has "
                    + what);
        }
        call.placed = memory;
        return new PlacedAnswer(memory.retainedSlice(memory.writerIndex(), payloadLength).writerIndex(0), call);
    }

    /** The memory one answer's body is received into, while its call waits for it. */
    private record PlacedAnswer(ByteBuf memory, PendingCall<?> call) implements PayloadPlacement.Target {
        @Override
        public boolean stillValid() {
            return !call.settled && !call.future.isDone();
        }
    }
}
