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

    /**
     * Whether this is a replica's capture of its own state, every entry of which its journal still
     * holds: such a checkpoint may be recorded after later operations, its image saved in the
     * background, since until it is recorded replay rebuilds the same state from the log. An image
     * received from another member is not (the entries below it are nowhere in the journal).
     */
    default boolean ownState() {
        return false;
    }

    /**
     * For a capture of a replica's own state ({@link #ownState}): false once a checkpoint from
     * elsewhere was restored over that state, after which the image no longer shows the checkpoint
     * it was captured for. Other images stay current.
     */
    default boolean current() {
        return true;
    }

    /** Checks that {@code [offset, offset + length)} lies in an image of {@code size} bytes. */
    static void checkRange(long offset, int length, long size) {
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new IndexOutOfBoundsException("bytes " + offset + "+" + length + " outside an image of " + size);
        }
    }
}
