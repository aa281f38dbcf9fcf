package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Immutable bytes with their CRC32C computed once: the common part of {@link BytesPayload} and
 * {@link ByteImage}. Two instances are equal when they are of the same class and hold the same bytes;
 * the checksum is the hash code and rejects most unequal pairs without comparing bytes.
 */
abstract class CheckedBytes {

    final byte[] bytes;
    final int crc;

    /** Takes ownership of {@code owned}, whose CRC32C is {@code crc}. */
    CheckedBytes(byte[] owned, int crc) {
        this.bytes = owned;
        this.crc = crc;
    }

    /** CRC32C (Castagnoli) of a whole array, as an int. */
    static int crc32c(byte[] data) {
        CRC32C c = new CRC32C();
        c.update(data, 0, data.length);
        return (int) c.getValue();
    }

    /** CRC32C of the bytes, as an int (the low 32 bits of {@link CRC32C#getValue()}). */
    public int crc32c() {
        return crc;
    }

    /** A read-only view of all the bytes; no copy is made. */
    public ByteBuf asByteBuf() {
        return Unpooled.wrappedBuffer(bytes).asReadOnly();
    }

    /** A copy of the bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && ((CheckedBytes) o).crc == crc
                && Arrays.equals(((CheckedBytes) o).bytes, bytes);
    }

    @Override
    public final int hashCode() {
        return crc;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + bytes.length + " bytes, crc32c=" + Integer.toHexString(crc) + "]";
    }
}
