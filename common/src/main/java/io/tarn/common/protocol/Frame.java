package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Layout of every RPC frame, request or response, on every transport.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |            length: bytes after this field (int32)             |
 * +---------------+---------------+-------------------------------+
 * |    version    |     flags     |        opcode (uint16)        |
 * +---------------+---------------+-------------------------------+
 * |                     request id (int64)                        |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |        status (int32): 0 in requests, an ErrorCode in responses|
 * +---------------------------------------------------------------+
 * |  body: the operation's fields; for an error response, a       |
 * |  UTF-8 message and maybe where to go instead ({@link ErrorAnswer}) |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * All integers are big-endian. A response carries the opcode and request id of its request, and the
 * {@link #FLAG_RESPONSE} flag. Frames longer than {@code tarn.rpc.max.frame} are malformed.
 */
public final class Frame {
    private Frame() {
    }

    /** The protocol version this build speaks. */
    public static final byte VERSION = 1;

    public static final int LENGTH_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int FLAGS_OFFSET = 5;
    public static final int OPCODE_OFFSET = 6;
    public static final int REQUEST_ID_OFFSET = 8;
    public static final int STATUS_OFFSET = 16;
    /** Bytes before the body, including the length field. */
    public static final int HEADER_LENGTH = 20;
    /** Bytes of the length field. */
    public static final int LENGTH_FIELD = 4;

    /** Set in responses. */
    public static final int FLAG_RESPONSE = 1;

    /**
     * Writes a header with a placeholder length at the buffer's writer index; call
     * {@link #finish(ByteBuf, int)} with the returned start once the body is written.
     */
    public static int begin(ByteBuf buf, int opcode, long requestId, int flags, int status) {
        int start = buf.writerIndex();
        buf.writeInt(0);
        buf.writeByte(VERSION);
        buf.writeByte(flags);
        buf.writeShort(opcode);
        buf.writeLong(requestId);
        buf.writeInt(status);
        return start;
    }

    /** Fills in the length of the frame that starts at {@code start}. */
    public static void finish(ByteBuf buf, int start) {
        buf.setInt(start + LENGTH_OFFSET, buf.writerIndex() - start - LENGTH_FIELD);
    }

    public static int version(ByteBuf frame) {
        return frame.getByte(frame.readerIndex() + VERSION_OFFSET);
    }

    public static int flags(ByteBuf frame) {
        return frame.getByte(frame.readerIndex() + FLAGS_OFFSET) & 0xff;
    }

    public static int opcode(ByteBuf frame) {
        return frame.getUnsignedShort(frame.readerIndex() + OPCODE_OFFSET);
    }

    public static long requestId(ByteBuf frame) {
        return frame.getLong(frame.readerIndex() + REQUEST_ID_OFFSET);
    }

    public static int status(ByteBuf frame) {
        return frame.getInt(frame.readerIndex() + STATUS_OFFSET);
    }
}
