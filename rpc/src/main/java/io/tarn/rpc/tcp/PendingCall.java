package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcClient.ResponseDecoder;
import io.tarn.rpc.RpcClient.ResponseTarget;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * One call of a {@link TcpClient} (or its {@link DirectLane}) from submission to answer: the
 * encoded request, the buffers it holds, and the future its caller got.
 *
 * <p>Made by the caller's thread, which encodes the request into it; from then on it belongs to
 * the connection's event loop (or the lane's caller) alone, so its fields are plain. It guarantees
 * that every buffer it holds is released exactly once, whatever way the call ends, and that its
 * slot, if it holds one ({@link #slotless}), is freed before its future completes.
 */
final class PendingCall<T> {
    final int opcode;
    final ResponseDecoder<T> decoder;
    final CompletableFuture<T> future = new CompletableFuture<>();
    ByteBuf buf;
    ByteBuf payload;
    /** Names memory for the answer's body, until asked. */
    ResponseTarget target;
    /** The memory the answer's body is being received into, held until the call is settled. */
    ByteBuf placed;
    long id;
    long deadline;
    /** A read-only call's request, kept until answered so that it can be sent once more. */
    ByteBuf keep;
    /** Where the request starts in {@link #keep}. */
    int start;
    /** Sent a second time already: never again. */
    boolean resent;
    /** Answered or given up since it was last sent (event loop only). */
    boolean settled;
    /**
     * Holds no call slot: made on an I/O thread when none was free, or waiting in the line of
     * {@link CallSlots} (which keeps the slots of the calls in it). False once it is sent.
     */
    boolean slotless;

    PendingCall(int opcode, ResponseDecoder<T> decoder, ByteBuf payload, ResponseTarget target) {
        this.opcode = opcode;
        this.decoder = decoder;
        this.payload = payload;
        this.target = target;
    }

    /**
     * Decodes the answer, frees the call's slot, then completes the future. Any throwable from
     * the decoder fails the call (it must not leave the future pending forever). A decoded value
     * that nobody can receive any more (the caller cancelled the future) is released when it is
     * reference-counted, such as a retained slice of block data.
     */
    void decodeAndComplete(ByteBuf body, String remote, Semaphore slots) {
        T value;
        try {
            value = decoder.decode(body);
        } catch (Throwable e) {
            release(slots);
            future.completeExceptionally(new TarnException(ErrorCode.MALFORMED_REQUEST,
                    "malformed " + Opcode.name(opcode) + " response from " + remote + ": " + e.getMessage(), e));
            return;
        }
        release(slots);
        if (!future.complete(value)) {
            ReferenceCountUtil.release(value);
        }
    }

    /** Frees the call's slot, if it holds one, then fails its future. */
    void fail(Throwable error, Semaphore slots) {
        if (!slotless) {
            release(slots);
        }
        future.completeExceptionally(error);
    }

    /** Frees the call's slot; a call on the direct lane took none ({@code slots} null). */
    private static void release(Semaphore slots) {
        if (slots != null) {
            slots.release();
        }
    }

    /** The call is answered (or given up): its kept request is not needed any more. */
    void dropKept() {
        if (keep != null) {
            keep.release();
            keep = null;
        }
    }

    /** The call is given up or sent again: the memory its answer was being placed into goes back. */
    void dropPlaced() {
        if (placed != null) {
            placed.release();
            placed = null;
        }
    }

    void releaseBuffers() {
        dropKept();
        if (buf != null) {
            buf.release();
            buf = null;
        }
        if (payload != null) {
            payload.release();
            payload = null;
        }
    }
}
