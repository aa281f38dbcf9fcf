package io.tarn.datanode;

import io.tarn.common.security.BlockTokens;

import java.util.Objects;

/**
 * What a datanode learned from one namenode when it registered: the id that namenode gave it, the
 * block size carving its regions, the key that checks the tokens that namenode issues, and the
 * generation table laid out for that block size (one table for all namenodes' regions).
 *
 * <p>Immutable; {@link BlockService} keeps one per namenode and reads the one owning a request's
 * region with a single volatile load, so a re-registration swaps all of it at once.
 */
public record Registration(int datanodeId, int blockSize, BlockTokens tokens, GenerationTable generations) {

    public Registration {
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(generations, "generations");
        if (generations.blockSize() != blockSize) {
            throw new IllegalArgumentException("generation table is laid out for blocks of "
                    + generations.blockSize() + " bytes, not " + blockSize);
        }
    }

    /** Blocks in one region. */
    public int blocksPerRegion() {
        return generations.blocksPerRegion();
    }
}
