package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.ErrorDetail.MovedTo;
import io.tarn.common.error.ErrorDetail.Redirect;

/**
 * The body of an error answer: the message, then, for the errors that say where to go instead, an
 * {@link ErrorDetail}. An answer without a detail ends after the message; a detail of a kind this
 * build does not know is skipped, so a newer server's detail never fails an older client.
 * <pre>
 * message[str] [kind[u8] fields]
 * MovedTo:   kind 1, fileId[i64]
 * Redirect:  kind 2, partition[u16] address[str]   (host:port of the namenode to use)
 * </pre>
 */
public final class ErrorAnswer {
    private static final int MOVED_TO = 1;
    private static final int REDIRECT = 2;

    private ErrorAnswer() {
    }

    /** Writes the message and, when not null, the detail. */
    public static void write(ByteBuf buf, String message, ErrorDetail detail) {
        Wire.writeString(buf, message);
        if (detail instanceof MovedTo m) {
            buf.writeByte(MOVED_TO);
            buf.writeLong(m.fileId());
        } else if (detail instanceof Redirect r) {
            buf.writeByte(REDIRECT);
            buf.writeShort(r.partition());
            Wire.writeString(buf, r.address());
        }
    }

    /**
     * The detail after the message (read first with {@link Wire#readString}): null when the body
     * ends there, names a kind this build does not know, or is cut short (the code and message still
     * stand without it).
     */
    public static ErrorDetail readDetail(ByteBuf buf) {
        if (!buf.isReadable()) {
            return null;
        }
        try {
            int kind = buf.readUnsignedByte();
            switch (kind) {
                case MOVED_TO:
                    return new MovedTo(Wire.readLong(buf));
                case REDIRECT:
                    return new Redirect(Wire.readUnsignedShort(buf), Wire.readString(buf));
                default:
                    return null;
            }
        } catch (MalformedMessageException cutShort) {
            return null;
        } finally {
            buf.skipBytes(buf.readableBytes());
        }
    }
}
