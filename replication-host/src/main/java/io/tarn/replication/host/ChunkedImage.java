package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.tarn.replication.StateImage;

import java.util.BitSet;

/**
 * A checkpoint image read piece by piece, so that no one ever holds a whole region's image in one
 * buffer: a follower receives it in chunks ({@link ImageTransfers}), the journal streams it to a
 * file ({@link FileImageStore}), a store restores from it chunk by chunk
 * (a datanode's region group store).
 *
 * <p>Layout of a region group's image: the generation of every block (int32 each), then the
 * region's bytes. Implementations may be called from several threads.
 */
public interface ChunkedImage extends StateImage {

    /** Bytes a chunk has at most when an image is copied piece by piece. */
    int CHUNK_BYTES = 1 << 20;

    /** Bytes of a page: the unit in which changes are tracked and image files checksummed. */
    int PAGE_BYTES = 4096;

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

    /**
     * For a capture of a replica's own state: its number among the captures of its store, increasing
     * (0 for other images). An image saved from a capture differs from the live state only in the
     * pages {@link #changedSince} that number.
     */
    default long epoch() {
        return 0;
    }

    /**
     * For a capture of a replica's own state: the pages ({@link #PAGE_BYTES} each, counted from the
     * image's start) that may have changed in its store since the capture numbered {@code epoch} of
     * the same store, or null when that is not known (then any page may have). Null for other images.
     * May be called from any thread: a page changed while this runs may be left out only if it
     * changed after this capture.
     */
    default BitSet changedSince(long epoch) {
        return null;
    }

    /** Checks that {@code [offset, offset + length)} lies in an image of {@code size} bytes. */
    static void checkRange(long offset, int length, long size) {
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new IndexOutOfBoundsException("bytes " + offset + "+" + length + " outside an image of " + size);
        }
    }
}
