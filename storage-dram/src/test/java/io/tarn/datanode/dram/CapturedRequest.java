package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.protocol.Frame;
import io.tarn.rpc.RpcRequest;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * A request built from real buffers that records how it was answered: the transport's side of
 * the {@link RpcRequest} contract, so handlers can be tested without sockets. Fails the test when
 * a request is answered twice; releases the body on answering, as the transport does.
 */
final class CapturedRequest implements RpcRequest {
    private final int opcode;
    private final ByteBuf body;
    private ErrorCode status;
    private String message;
    private byte[] payload;
    private int answers;

    private final int placedBytes;

    CapturedRequest(int opcode, ByteBuf body) {
        this(opcode, body, -1);
    }

    /** A request whose payload the handler placed: the body holds only the head. */
    CapturedRequest(int opcode, ByteBuf body, int placedBytes) {
        this.opcode = opcode;
        this.body = body;
        this.placedBytes = placedBytes;
    }

    @Override
    public int placedBytes() {
        return placedBytes;
    }

    @Override
    public int opcode() {
        return opcode;
    }

    @Override
    public long requestId() {
        return 1;
    }

    @Override
    public ByteBuf body() {
        return body;
    }

    @Override
    public SocketAddress remoteAddress() {
        return new InetSocketAddress("127.0.0.1", 1);
    }

    @Override
    public ByteBufAllocator alloc() {
        return ByteBufAllocator.DEFAULT;
    }

    @Override
    public ByteBuf response() {
        ByteBuf buf = Unpooled.buffer();
        Frame.begin(buf, opcode, 1, Frame.FLAG_RESPONSE, 0);
        return buf;
    }

    @Override
    public void send(ByteBuf response) {
        sendWithPayload(response, Unpooled.EMPTY_BUFFER);
    }

    @Override
    public void sendWithPayload(ByteBuf response, ByteBuf data) {
        answered();
        status = ErrorCode.OK;
        ByteBuf whole = Unpooled.wrappedBuffer(response.skipBytes(Frame.HEADER_LENGTH), data);
        payload = ByteBufUtil.getBytes(whole);
        whole.release();
    }

    @Override
    public void fail(ErrorCode code, String text) {
        answered();
        status = code;
        message = text;
    }

    @Override
    public void fail(ErrorCode code, String text, ErrorDetail detail) {
        fail(code, text);
    }

    /** Like the transport: the body is released once the request is answered. */
    private void answered() {
        if (++answers > 1) {
            throw new AssertionError("request answered twice");
        }
        body.release();
    }

    /** The status answered, or null when unanswered. */
    ErrorCode status() {
        return status;
    }

    String message() {
        return message;
    }

    /** Response body and payload of a successful answer. */
    byte[] payload() {
        return payload;
    }

    @Override
    public String toString() {
        return status + (message != null ? ": " + message : "");
    }
}
