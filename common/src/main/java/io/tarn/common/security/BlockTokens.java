package io.tarn.common.security;

import java.security.SecureRandom;

/**
 * Issues and checks block access tokens.
 *
 * <p>A token is SipHash-2-4, keyed with a cluster secret the namenode creates at start-up and hands
 * to each datanode when it registers, over (datanode, region, block, generation, mode). Checking it
 * needs no per-block state and no call to the namenode; forging one needs the key. The namenode and
 * datanodes share one instance per key; instances are immutable and thread-safe.
 */
public final class BlockTokens {
    /** Access mode bit in a token: reading. */
    public static final int READ = 1;
    /** Access mode bit in a token: writing (also permits reading). */
    public static final int WRITE = 2;

    private final long k0;
    private final long k1;

    public BlockTokens(long k0, long k1) {
        this.k0 = k0;
        this.k1 = k1;
    }

    /** A fresh random key. */
    public static BlockTokens random() {
        SecureRandom r = new SecureRandom();
        return new BlockTokens(r.nextLong(), r.nextLong());
    }

    public long key0() {
        return k0;
    }

    public long key1() {
        return k1;
    }

    /** The token for a block reference with the given access mode. */
    public long issue(int datanodeId, int regionId, int blockIndex, int generation, int mode) {
        return SipHash.hash(k0, k1, ((long) datanodeId << 32) | (regionId & 0xffffffffL),
                ((long) blockIndex << 32) | (generation & 0xffffffffL), mode);
    }

    /** True when {@code token} grants {@code mode}; a write token also grants reading. */
    public boolean check(long token, int datanodeId, int regionId, int blockIndex, int generation, int mode) {
        if (token == issue(datanodeId, regionId, blockIndex, generation, mode)) {
            return true;
        }
        return mode == READ && token == issue(datanodeId, regionId, blockIndex, generation, WRITE);
    }
}
