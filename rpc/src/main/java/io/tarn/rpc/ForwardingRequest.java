package io.tarn.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.security.Identity;

import java.net.SocketAddress;

/**
 * A request that hands everything to another one; a subclass changes what it must (when the answer
 * is sent, what the handler sees of the request) and leaves the rest.
 */
public abstract class ForwardingRequest implements RpcRequest {
    /** The request everything goes to. */
    protected final RpcRequest request;

    protected ForwardingRequest(RpcRequest request) {
        this.request = request;
    }

    @Override
    public int opcode() {
        return request.opcode();
    }

    @Override
    public long requestId() {
        return request.requestId();
    }

    @Override
    public ByteBuf body() {
        return request.body();
    }

    @Override
    public int placedBytes() {
        return request.placedBytes();
    }

    @Override
    public SocketAddress remoteAddress() {
        return request.remoteAddress();
    }

    @Override
    public Identity identity() {
        return request.identity();
    }

    @Override
    public ByteBufAllocator alloc() {
        return request.alloc();
    }

    @Override
    public ByteBuf response() {
        return request.response();
    }

    @Override
    public void send(ByteBuf response) {
        request.send(response);
    }

    @Override
    public void sendWithPayload(ByteBuf response, ByteBuf payload) {
        request.sendWithPayload(response, payload);
    }

    @Override
    public void fail(ErrorCode code, String message) {
        fail(code, message, null);
    }

    @Override
    public void fail(ErrorCode code, String message, ErrorDetail detail) {
        request.fail(code, message, detail);
    }
}
