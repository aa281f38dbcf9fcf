package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.protocol.ErrorAnswer;
import io.tarn.common.protocol.Frame;
import io.tarn.common.security.Identity;
import io.tarn.rpc.RpcRequest;

import java.net.SocketAddress;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** One request received on a TCP connection; answers go back on the same connection. */
final class TcpRequest implements RpcRequest {
    /** Error messages are cut to this many characters so an error never makes a huge frame. */
    private static final int MAX_MESSAGE = 4000;

    private final ServerHandler handler;
    private final Channel channel;
    private final ByteBuf frame;
    private final ByteBuf body;
    private final int opcode;
    private final long requestId;
    private final int placedBytes;
    /**
     * Set once an answer is claimed, atomically (through {@link #ANSWERED}): a handler answering on
     * its executor may race the I/O thread's failIfOpen. A field of this object rather than an
     * AtomicBoolean of its own: one allocation less per request.
     */
    @SuppressWarnings("unused") // accessed through ANSWERED
    private volatile boolean answered;
    private static final VarHandle ANSWERED;

    static {
        try {
            ANSWERED = MethodHandles.lookup().findVarHandle(TcpRequest.class, "answered", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** @param placedBytes payload bytes placed by the handler ({@link RpcRequest#placedBytes()}), or -1 */
    TcpRequest(ServerHandler handler, Channel channel, ByteBuf frame, int placedBytes) {
        this.handler = handler;
        this.placedBytes = placedBytes;
        this.channel = channel;
        this.frame = frame;
        this.opcode = Frame.opcode(frame);
        this.requestId = Frame.requestId(frame);
        // The frame is this request's own slice of the read buffer: the body is the frame past its
        // header (no second slice per request).
        this.body = frame.skipBytes(Frame.HEADER_LENGTH);
        handler.requestArrived();
    }

    @Override
    public int opcode() {
        return opcode;
    }

    @Override
    public long requestId() {
        return requestId;
    }

    @Override
    public ByteBuf body() {
        return body;
    }

    @Override
    public int placedBytes() {
        return placedBytes;
    }

    @Override
    public SocketAddress remoteAddress() {
        return channel.remoteAddress();
    }

    @Override
    public Identity identity() {
        return handler.identity();
    }

    @Override
    public ByteBufAllocator alloc() {
        return channel.alloc();
    }

    @Override
    public ByteBuf response() {
        ByteBuf buf = channel.alloc().ioBuffer(256);
        Frame.begin(buf, opcode, requestId, Frame.FLAG_RESPONSE, ErrorCode.OK.code());
        return buf;
    }

    @Override
    public void send(ByteBuf response) {
        markAnswered(response, null);
        Frame.finish(response, 0);
        write(response, null);
    }

    @Override
    public void sendWithPayload(ByteBuf response, ByteBuf payload) {
        markAnswered(response, payload);
        response.setInt(Frame.LENGTH_OFFSET, response.writerIndex() - Frame.LENGTH_FIELD + payload.readableBytes());
        write(response, payload);
    }

    @Override
    public void fail(ErrorCode code, String message) {
        fail(code, message, null);
    }

    @Override
    public void fail(ErrorCode code, String message, ErrorDetail detail) {
        send(errorFrame(channel, opcode, requestId, code, message, detail));
    }

    /**
     * An error response, length not yet filled in; the message is cut to {@link #MAX_MESSAGE}
     * characters, the detail (null for none) follows it.
     */
    private static ByteBuf errorFrame(Channel channel, int opcode, long requestId, ErrorCode code, String message,
            ErrorDetail detail) {
        String text = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
        ByteBuf buf = channel.alloc().ioBuffer(96 + text.length() * 3);
        Frame.begin(buf, opcode, requestId, Frame.FLAG_RESPONSE, code.code());
        ErrorAnswer.write(buf, text, detail);
        return buf;
    }

    /** Fails the request unless the handler already answered it. */
    void failIfOpen(ErrorCode code, String message) {
        if (!answered) {
            try {
                fail(code, message);
            } catch (IllegalStateException answeredMeanwhile) {
                // The handler's executor answered between the check and the claim; its answer stands.
            }
        }
    }

    private void markAnswered(ByteBuf response, ByteBuf payload) {
        if (!ANSWERED.compareAndSet(this, false, true)) {
            response.release();
            if (payload != null) {
                payload.release();
            }
            throw new IllegalStateException("request " + requestId + " answered twice");
        }
        frame.release();
    }

    private void write(ByteBuf response, ByteBuf payload) {
        if (channel.eventLoop().inEventLoop()) {
            channel.write(response, channel.voidPromise());
            if (payload != null) {
                channel.write(payload, channel.voidPromise());
            }
            if (!handler.pacer.inReadBatch() || handler.pacer.wroteShouldFlush(FlushPacer.SERVER_FLUSH_AT)) {
                channel.flush();
            }
            handler.requestAnswered();
        } else {
            channel.eventLoop().execute(() -> {
                channel.write(response, channel.voidPromise());
                if (payload != null) {
                    channel.write(payload, channel.voidPromise());
                }
                channel.flush();
                handler.requestAnswered();
            });
        }
    }

    /** Answers a frame that could not become a request, then closes the connection. */
    static void sendErrorAndClose(Channel channel, ErrorCode code, String message) {
        sendErrorAndClose(channel, 0, 0, code, message);
    }

    /** Like {@link #sendErrorAndClose(Channel, ErrorCode, String)}, closing once the frame is written. */
    static void sendErrorAndCloseNow(Channel channel, ErrorCode code, String message) {
        ByteBuf buf = errorFrame(channel, 0, 0, code, message, null);
        Frame.finish(buf, 0);
        LastWord.sendAndClose(channel, buf);
    }

    /** Answers request {@code requestId} of {@code opcode} with an error, then closes the connection. */
    static void sendErrorAndClose(Channel channel, int opcode, long requestId, ErrorCode code, String message) {
        ByteBuf buf = errorFrame(channel, opcode, requestId, code, message, null);
        Frame.finish(buf, 0);
        LastWord.send(channel, buf);
    }
}
