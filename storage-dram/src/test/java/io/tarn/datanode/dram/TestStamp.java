package io.tarn.datanode.dram;

import io.tarn.common.security.BlockTokens;

/** A token stamp for tests that issue their own tokens: namenode 0's current key, valid for a day. */
final class TestStamp {
    /** Issuer 0, the key of the current epoch of the default rotation, expiring a day after class loading. */
    static final long STAMP = BlockTokens.stampOf(0,
            (int) (System.currentTimeMillis() / BlockTokens.DEFAULT_ROTATION_MS),
            System.currentTimeMillis() / 1000 + 24 * 3600);

    private TestStamp() {
    }
}
