package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.tarn.replication.StateImage;

/**
 * A checkpoint image read piece by piece, so that no one ever holds a whole region's image in one
 * buffer: a follower receives it in chunks ({@link ImageTransfers}), the journal streams it to a
 * file ({@link FileImageStore}), a store restores from it chunk by chunk
 * ({@link RegionGroupStore#restore}).
 *
 * <p>Layout of a region group's image: the generation of every block (int32 each), then the
 * region's bytes. Implementations may be called from several threads.
 */
public interface ChunkedImage extends StateImage {

    /** Bytes a chunk has at most when an image is copied piece by piece. */
    int CHUNK_BYTES = 1 << 20;

    /**
     * The {@code length} bytes at {@code offset}, as a buffer the caller owns and must release (or
     * hand to the transport). It may share memory with the image's source: a live image shows
     * writes applied since the buffer was made until it is consumed.
     *
     * @throws IndexOutOfBoundsException when the range is outside the image
     * @throws java.io.UncheckedIOException when a file-backed image cannot be read
     */
    ByteBuf slice(long offset, int length);

    /** Checks that {@code [offset, offset + length)} lies in an image of {@code size} bytes. */
    static void checkRange(long offset, int length, long size) {
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new IndexOutOfBoundsException("bytes " + offset + "+" + length + " outside an image of " + size);
        }
    }
}
