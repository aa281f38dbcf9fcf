package io.tarn.rpc;

import io.netty.buffer.ByteBuf;

import java.util.concurrent.CompletableFuture;

/**
 * Calls to one server over one connection, pipelined: many calls may be in flight and responses
 * are matched by request id. Thread-safe.
 *
 * <p>The connection opens on the first call and is re-opened by the next call after it breaks
 * (for example after a server restart). Calls in flight when it breaks fail with
 * {@link io.tarn.common.error.ErrorCode#CONNECTION_LOST}, except read-only ones
 * ({@link io.tarn.common.protocol.Opcode#isReadOnly}), which are sent once more on a new
 * connection; calls that get no answer within
 * {@code tarn.rpc.timeout} fail with {@link io.tarn.common.error.RpcTimeoutException}. An error
 * response completes the future exceptionally with the typed exception for its code
 * ({@link io.tarn.common.error.TarnException#of}). At most {@code tarn.rpc.max.inflight} calls are
 * outstanding; further calls wait for a slot.
 */
public interface RpcClient extends AutoCloseable {

    /** Writes a request body. Runs on the caller's thread or an I/O thread. */
    @FunctionalInterface
    interface BodyWriter {
        void write(ByteBuf body);
    }

    /** Turns a response body into a result. Runs on an I/O thread; must not block. */
    @FunctionalInterface
    interface ResponseDecoder<T> {
        T decode(ByteBuf body) throws Exception;
    }

    /**
     * Names the memory the body of a large answer is received into (block data read into the
     * caller's buffer), instead of the transport's buffers and copied from there.
     */
    @FunctionalInterface
    interface ResponseTarget {
        /**
         * Memory for an OK answer's body of {@code bodyLength} bytes: empty (writer index at reader
         * index) with at least that many writable bytes, or null to receive the body as usual.
         * Asked on the I/O thread, at most once per call, once the answer's header has arrived,
         * when its body is at least {@link PayloadPlacement#MIN_PAYLOAD} bytes and not all here
         * yet. The transport writes the body from the socket straight into it, hands it to the
         * call's decoder as the body (the decoder retains what it keeps), then releases it.
         */
        ByteBuf claim(int bodyLength);
    }

    /** Calls {@code opcode} with a body written by {@code writer}. */
    <T> CompletableFuture<T> call(int opcode, BodyWriter writer, ResponseDecoder<T> decoder);

    /**
     * Like {@link #call} but appends {@code payload} after the body without copying it (block
     * data). Takes ownership of {@code payload}: it is released once sent or on failure.
     */
    <T> CompletableFuture<T> call(int opcode, BodyWriter writer, ByteBuf payload, ResponseDecoder<T> decoder);

    /**
     * Like {@link #call(int, BodyWriter, ResponseDecoder)}, receiving the body of a large OK answer
     * into the memory {@code target} names (see {@link ResponseTarget}); a body that is not placed
     * reaches the decoder as usual. Once the call's future is complete (or cancelled) no further
     * byte is written to that memory, except by the one socket read under way when it was
     * cancelled.
     */
    <T> CompletableFuture<T> callInto(int opcode, BodyWriter writer, ResponseTarget target,
            ResponseDecoder<T> decoder);

    /** host:port of the server, for messages. */
    String remote();

    /** Fails every call in flight and closes the connection; later calls fail. */
    @Override
    void close();
}
