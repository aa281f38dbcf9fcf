package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.replication.Payload;

import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32C;

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
public final class BytesPayload implements Payload {

    private final byte[] bytes;
    private final int crc;

    /** Takes ownership of {@code owned}: callers in this package pass arrays nobody else holds. */
    BytesPayload(byte[] owned, int crc) {
        this.bytes = owned;
        this.crc = crc;
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

    /** CRC32C (Castagnoli) of a whole array. */
    static int crc32c(byte[] data) {
        CRC32C c = new CRC32C();
        c.update(data, 0, data.length);
        return (int) c.getValue();
    }

    @Override
    public int length() {
        return bytes.length;
    }

    /** CRC32C of the bytes, as an int (the low 32 bits of {@link CRC32C#getValue()}). */
    public int crc32c() {
        return crc;
    }

    /** A read-only view of all the bytes; no copy is made. */
    public ByteBuf asByteBuf() {
        return Unpooled.wrappedBuffer(bytes).asReadOnly();
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

    /** A copy of the bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BytesPayload p && p.crc == crc && Arrays.equals(p.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return crc;
    }

    @Override
    public String toString() {
        return "BytesPayload[" + bytes.length + " bytes, crc32c=" + Integer.toHexString(crc) + "]";
    }
}
