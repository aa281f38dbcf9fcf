package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.tarn.datanode.RegionStore;

import java.util.Random;

/** Test data and what a store holds, for the block service's tests. */
final class TestBytes {
    private TestBytes() {
    }

    /** {@code n} pseudo-random bytes, the same for the same seed. */
    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A copy of the {@code length} bytes at {@code offset} in {@code region}. */
    static byte[] stored(RegionStore store, int region, long offset, int length) {
        ByteBuf b = store.read(region, offset, length);
        byte[] out = new byte[length];
        b.getBytes(b.readerIndex(), out);
        b.release();
        return out;
    }
}
