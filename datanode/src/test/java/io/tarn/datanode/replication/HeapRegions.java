package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.datanode.RegionStore;

/** Regions in heap arrays: the region-store SPI for tests of the datanode core, which has no store of its own. */
final class HeapRegions implements RegionStore {
    private final byte[][] regions;

    HeapRegions(int count, int size) {
        regions = new byte[count][size];
    }

    @Override
    public int regionCount() {
        return regions.length;
    }

    @Override
    public long regionSize() {
        return regions[0].length;
    }

    @Override
    public void write(int region, long offset, ByteBuf src, int srcIndex, int length) {
        src.getBytes(srcIndex, regions[region], (int) offset, length);
    }

    @Override
    public ByteBuf read(int region, long offset, int length) {
        return Unpooled.wrappedBuffer(regions[region], (int) offset, length);
    }

    @Override
    public ByteBuf writable(int region, long offset, int length) {
        return Unpooled.wrappedBuffer(regions[region], (int) offset, length).clear();
    }

    @Override
    public void close() {
    }
}
