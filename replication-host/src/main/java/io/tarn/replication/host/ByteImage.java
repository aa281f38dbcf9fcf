package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Wire;
import io.tarn.replication.StateImage;


/**
 * A checkpoint image held in memory as bytes: for tests and small groups. Immutable; equality compares
 * content. A datanode never makes one of a region: it moves images in chunks ({@link ChunkedImage}).
 *
 * <p>Wire form ({@link #CODEC}): {@code length[i32] crc32c[i32] bytes[length]}; decoding verifies the
 * checksum.
 */
public final class ByteImage extends CheckedBytes implements ChunkedImage {

    /** Writes and reads {@link ByteImage}s. */
    public static final ImageCodec CODEC = new ImageCodec() {
        @Override
        public void encode(StateImage image, ByteBuf out) {
            ByteImage b = of(image);
            out.writeInt(b.bytes.length);
            out.writeInt(b.crc);
            out.writeBytes(b.bytes);
        }

        @Override
        public StateImage decode(ByteBuf in) {
            int length = Wire.readInt(in, 0, Integer.MAX_VALUE, "image length");
            int crc = Wire.readInt(in);
            Wire.need(in, length);
            byte[] bytes = new byte[length];
            in.readBytes(bytes);
            int actual = crc32c(bytes);
            if (actual != crc) {
                throw new MalformedMessageException("checkpoint image checksum mismatch: carried "
                        + Integer.toHexString(crc) + ", computed " + Integer.toHexString(actual));
            }
            return new ByteImage(bytes, crc);
        }
    };

    private ByteImage(byte[] owned, int crc) {
        super(owned, crc);
    }

    /** An image holding a copy of {@code src}. */
    public static ByteImage copyOf(byte[] src) {
        byte[] copy = src.clone();
        return new ByteImage(copy, crc32c(copy));
    }

    /**
     * {@code image} as a {@link ByteImage}: itself, or a copy of the bytes a chunked image (a live
     * region image, a file) holds now. For tests and small images: it copies the whole image.
     *
     * @throws IllegalArgumentException for an image of another kind
     */
    public static ByteImage of(StateImage image) {
        if (image instanceof ByteImage b) {
            return b;
        }
        if (image instanceof ChunkedImage chunked) {
            byte[] bytes = new byte[Math.toIntExact(chunked.sizeBytes())];
            for (int at = 0; at < bytes.length; at += CHUNK_BYTES) {
                int n = Math.min(CHUNK_BYTES, bytes.length - at);
                ByteBuf part = chunked.slice(at, n);
                try {
                    part.getBytes(part.readerIndex(), bytes, at, n);
                } finally {
                    part.release();
                }
            }
            return new ByteImage(bytes, crc32c(bytes));
        }
        throw new IllegalArgumentException("not an image of bytes: " + image.getClass().getName());
    }

    /** An image over {@code owned}, whose checksum the caller already verified; the caller gives the array up. */
    static ByteImage adopt(byte[] owned, int crc) {
        return new ByteImage(owned, crc);
    }

    @Override
    public long sizeBytes() {
        return bytes.length;
    }

    @Override
    public ByteBuf slice(long offset, int length) {
        ChunkedImage.checkRange(offset, length, bytes.length);
        return Unpooled.wrappedBuffer(bytes, (int) offset, length);
    }
}
