package io.tarn.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.security.Identity;

import java.net.SocketAddress;

/**
 * One request received by a server, and the means to answer it.
 *
 * <p>{@link #body()} is valid until the request is answered; the transport releases it then.
 * To answer with data: take {@link #response()}, write the body fields, then {@link #send}.
 * Answering may happen on any thread.
 */
public interface RpcRequest {
    /** The operation, see {@link io.tarn.common.protocol.Opcode}. */
    int opcode();

    long requestId();

    /** The request body, reader index at its first byte. */
    ByteBuf body();

    /**
     * -1 when the request's payload, if any, is in its {@linkplain #body() body}. Otherwise the
     * handler {@linkplain PayloadPlacement placed} the payload: the body holds only the head, and
     * this many payload bytes were received into the placement's memory (all of them unless it
     * turned invalid meanwhile).
     */
    default int placedBytes() {
        return -1;
    }

    /** Who sent it (for logs and location affinity). */
    SocketAddress remoteAddress();

    /**
     * Who sent it, as the connection's authentication established ({@link Identity#UNAUTHENTICATED}
     * on a server that does not authenticate).
     */
    default Identity identity() {
        return Identity.UNAUTHENTICATED;
    }

    ByteBufAllocator alloc();

    /** A fresh buffer with the response header already written; write the body after it. */
    ByteBuf response();

    /** Sends a buffer obtained from {@link #response()} with its body written. */
    void send(ByteBuf response);

    /**
     * Sends a response header and body followed by {@code payload} without copying it; the
     * transport takes ownership of both buffers.
     */
    void sendWithPayload(ByteBuf response, ByteBuf payload);

    /** Answers with an error: the code and a message the user can act on. */
    void fail(ErrorCode code, String message);

    /**
     * Answers with an error that says where to go instead ({@link ErrorDetail}: a moved file's new
     * id, the namenode that owns what was asked); {@code detail} may be null.
     */
    void fail(ErrorCode code, String message, ErrorDetail detail);
}
