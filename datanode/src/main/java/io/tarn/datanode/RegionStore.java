package io.tarn.datanode;

import io.netty.buffer.ByteBuf;

/**
 * The bytes of a datanode's regions, whatever holds them (DRAM today, flash later).
 *
 * <p>A region is a fixed-size run of bytes the datanode registers with the namenode; the namenode
 * carves it into blocks. Callers ({@link BlockService}) validate every address before calling, so
 * implementations only guard against out-of-range access with an exception (they never touch
 * memory outside a region). Both operations are safe to call from many threads at once; two
 * concurrent writes to the same bytes leave either one's data.
 */
public interface RegionStore extends AutoCloseable {

    /** How many regions this store holds. */
    int regionCount();

    /** Bytes per region. */
    long regionSize();

    /**
     * Copies {@code length} bytes of {@code src}, starting at {@code srcIndex}, to
     * {@code offset} in {@code region}. Does not change {@code src}'s indices.
     *
     * @throws IndexOutOfBoundsException when the range is outside the region
     */
    void write(int region, long offset, ByteBuf src, int srcIndex, int length);

    /**
     * The {@code length} bytes at {@code offset} in {@code region}, as a buffer the caller owns
     * (and must release or hand to the transport). It may share memory with the region (no copy),
     * so later writes to the range can show through until it is sent.
     *
     * @throws IndexOutOfBoundsException when the range is outside the region
     */
    ByteBuf read(int region, long offset, int length);

    /**
     * The {@code length} bytes at {@code offset} in {@code region} as a buffer to write into
     * (writer index 0, capacity {@code length}): its memory is the region's, so bytes written to it
     * are stored with no further copy. The caller owns the buffer; releasing it frees nothing.
     *
     * @throws IndexOutOfBoundsException when the range is outside the region
     */
    ByteBuf writable(int region, long offset, int length);

    /**
     * Why {@code region} is out of service (its memory is gone, so every block in it is lost), or
     * null while it serves. An access to a region out of service throws instead of touching it.
     */
    default String failure(int region) {
        return null;
    }

    /**
     * Why clients on this host may not map {@code region}'s file themselves (short-circuit), or null
     * when they may: the file they would open is no longer the memory this store serves.
     */
    default String notShareable(int region) {
        return null;
    }

    /** Lets go of the regions; in-flight reads stay valid (memory is reclaimed by the garbage collector). */
    @Override
    void close();
}
