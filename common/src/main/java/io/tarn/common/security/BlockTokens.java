package io.tarn.common.security;

import java.security.SecureRandom;

/**
 * Issues and checks block access tokens.
 *
 * <p>A token is SipHash-2-4, keyed with a cluster secret the namenode creates at start-up and hands
 * to each datanode when it registers, over (datanode, region, block, generation, mode). Checking it
 * needs no per-block state and no call to the namenode; forging one needs the key. The namenode and
 * datanodes share one instance per key; thread-safe. An instance's key changes only through
 * {@link #rekey}: a member of a replicated namenode group takes its group's key while it rebuilds
 * its namespace, before it serves.
 */
public final class BlockTokens {
    /** Access mode bit in a token: reading. */
    public static final int READ = 1;
    /** Access mode bit in a token: writing (also permits reading). */
    public static final int WRITE = 2;

    /** The key: one reference, so a reader never sees half of a new key. */
    private record Key(long k0, long k1) {
    }

    private volatile Key key;

    public BlockTokens(long k0, long k1) {
        this.key = new Key(k0, k1);
    }

    /** From now on tokens are issued and checked under {@code k0, k1}. */
    public void rekey(long k0, long k1) {
        this.key = new Key(k0, k1);
    }

    /** A fresh random key. */
    public static BlockTokens random() {
        SecureRandom r = new SecureRandom();
        return new BlockTokens(r.nextLong(), r.nextLong());
    }

    public long key0() {
        return key.k0();
    }

    public long key1() {
        return key.k1();
    }

    /** The token for a block reference with the given access mode. */
    public long issue(int datanodeId, int regionId, int blockIndex, int generation, int mode) {
        Key k = key;
        return SipHash.hash(k.k0(), k.k1(), ((long) datanodeId << 32) | (regionId & 0xffffffffL),
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
