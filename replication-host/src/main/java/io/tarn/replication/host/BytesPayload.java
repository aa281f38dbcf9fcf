package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.replication.Payload;

import java.util.Arrays;
import java.util.Objects;

/**
 * The bytes of one replicated block write: exactly the bytes of the entry's {@code BlockRange}
 * (offsets relative to the start of the group's region).
 *
 * <p>Immutable: the bytes are copied once when the payload is made and never exposed for writing.
 * Equality compares content; the CRC32C of the bytes is computed once at construction, serves as the
 * hash code, rejects most unequal payloads without a byte comparison, and travels on the wire and in
 * the journal so corruption is caught end to end. {@link #asByteBuf()} and {@link #slice} give
 * read-only views without copying, for sending and for applying to the region.
 */
public final class BytesPayload extends CheckedBytes implements Payload {

    /** Takes ownership of {@code owned}: callers in this package pass arrays nobody else holds. */
    BytesPayload(byte[] owned, int crc) {
        super(owned, crc);
    }

    /** A payload holding a copy of {@code src}. */
    public static BytesPayload copyOf(byte[] src) {
        return copyOf(src, 0, src.length);
    }

    /** A payload holding a copy of {@code length} bytes of {@code src} from {@code offset}. */
    public static BytesPayload copyOf(byte[] src, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, src.length);
        byte[] copy = Arrays.copyOfRange(src, offset, offset + length);
        return new BytesPayload(copy, crc32c(copy));
    }

    /** A payload holding a copy of the readable bytes of {@code src}; its reader index does not move. */
    public static BytesPayload copyOf(ByteBuf src) {
        byte[] copy = new byte[src.readableBytes()];
        src.getBytes(src.readerIndex(), copy);
        return new BytesPayload(copy, crc32c(copy));
    }

    @Override
    public int length() {
        return bytes.length;
    }

    /** A read-only view of {@code length} bytes from {@code offset}; no copy is made. */
    public ByteBuf slice(int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        return Unpooled.wrappedBuffer(bytes, offset, length).asReadOnly();
    }

    /** Appends the bytes to {@code out}. */
    public void writeTo(ByteBuf out) {
        out.writeBytes(bytes);
    }
}
