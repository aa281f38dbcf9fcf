package io.tarn.rpc;

import io.netty.buffer.ByteBuf;

/**
 * Implemented by an {@link RpcHandler} that wants the large payloads of some requests received
 * straight into their final memory (a datanode's region), instead of into the transport's buffers
 * and copied from there.
 *
 * <p>A request eligible for placement has a fixed-size head at the start of its body (for
 * WRITE_BLOCK, the access part), then its payload. Once the frame's header and head have arrived,
 * and the payload is at least {@link #MIN_PAYLOAD} bytes and not all here yet, the transport asks
 * {@link #place} on its I/O thread. The handler checks everything it would check before storing the
 * payload and answers with the memory to receive it into, or null to have the request received and
 * handled as usual (which is also how it answers a request it refuses). The transport then reads
 * the rest of the payload from the socket straight into that memory and, once all of it is there,
 * hands the request to {@link RpcHandler#handle} with only the head as its body and
 * {@link RpcRequest#placedBytes()} saying how much of the payload was placed.
 *
 * <p>Before every read into the memory the transport asks {@link Target#stillValid()}. When it
 * turns false (a datanode: the block was given a newer generation meanwhile), the rest of the
 * payload is read and dropped, and the request reaches the handler with fewer placed bytes than its
 * payload, so the handler can refuse it. At most the one read under way when the target became
 * invalid lands after that.
 */
public interface PayloadPlacement {
    /** Payloads smaller than this are received as usual: placing them saves little. */
    int MIN_PAYLOAD = 64 * 1024;

    /** Bytes of body before the payload of requests with this opcode, or -1 when they are never placed. */
    int headLength(int opcode);

    /**
     * Where the payload of this request goes, or null to receive it as usual. Runs on the I/O
     * thread: must not block, and must not answer the request (the answer comes from
     * {@link RpcHandler#handle} once the whole frame is in).
     *
     * @param head          the head, at its reader index, valid only during the call
     * @param payloadLength bytes of payload the frame carries after the head
     */
    Target place(int opcode, ByteBuf head, int payloadLength);

    /** The memory one payload is received into. */
    interface Target {
        /**
         * Exactly the payload's length of memory, writer index 0; the transport writes into it
         * (advancing the writer index) and releases it when the request is handled or dropped.
         */
        ByteBuf memory();

        /** False once the payload must no longer be written to {@link #memory()}. */
        boolean stillValid();
    }
}
