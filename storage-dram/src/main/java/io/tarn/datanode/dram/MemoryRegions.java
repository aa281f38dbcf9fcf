package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.datanode.RegionStore;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Regions held in off-heap {@link ByteBuffer}s, one per region: the part of the DRAM store that
 * does not care whether the memory is a mapped file or plain direct memory.
 *
 * <p>The region buffers are never repositioned; every access slices them at an absolute index,
 * which leaves them untouched and is therefore safe from any number of threads. Memory is not
 * unmapped or freed explicitly on close: a read response may still reference it on its way to a
 * socket, so the garbage collector reclaims it once nothing does.
 *
 * <p>A region whose memory is gone ({@link #fail}) refuses every later access with a
 * {@link RegionLostException} instead of touching it: the memory of a mapped file cut short faults
 * on access.
 */
abstract class MemoryRegions implements RegionStore {
    private final ByteBuffer[] regions;
    private final int regionSize;
    /** Why each region is out of service, or null (the usual case: one volatile read per access). */
    private final AtomicReferenceArray<String> failures;

    MemoryRegions(ByteBuffer[] regions, int regionSize) {
        this.regions = regions;
        this.regionSize = regionSize;
        this.failures = new AtomicReferenceArray<>(regions.length);
    }

    /** Thrown by an access to a region taken out of service. */
    static final class RegionLostException extends IllegalStateException {
        RegionLostException(int region, String why) {
            super("region " + region + " is out of service: " + why);
        }
    }

    @Override
    public final String failure(int region) {
        return failures.get(region);
    }

    /** Takes {@code region} out of service for {@code why}; false when it already was. */
    final boolean fail(int region, String why) {
        return failures.compareAndSet(region, null, why);
    }

    @Override
    public final int regionCount() {
        return regions.length;
    }

    @Override
    public final long regionSize() {
        return regionSize;
    }

    @Override
    public final void write(int region, long offset, ByteBuf src, int srcIndex, int length) {
        src.getBytes(srcIndex, slice(region, offset, length));
    }

    @Override
    public final ByteBuf read(int region, long offset, int length) {
        // Netty wraps a direct buffer without taking ownership: releasing it does not free the region.
        return Unpooled.wrappedBuffer(slice(region, offset, length));
    }

    @Override
    public final ByteBuf writable(int region, long offset, int length) {
        return Unpooled.wrappedBuffer(slice(region, offset, length)).clear();
    }

    private ByteBuffer slice(int region, long offset, int length) {
        if (offset < 0 || offset > regionSize - (long) Math.max(length, 0)) {
            throw new IndexOutOfBoundsException("offset " + offset + " length " + length + " outside region of "
                    + regionSize + " bytes");
        }
        // Bounds of region and length are checked by the array and slice themselves.
        ByteBuffer memory = regions[region];
        String lost = failures.get(region);
        if (lost != null) {
            throw new RegionLostException(region, lost);
        }
        return memory.slice((int) offset, length);
    }

    @Override
    public void close() {
    }
}
