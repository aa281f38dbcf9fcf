package io.tarn.datanode;

import io.tarn.common.security.BlockTokens;

import java.util.Objects;

/**
 * What a datanode learned from the namenode when it registered: its id, the block size carving its
 * regions, the key that checks access tokens, and the generation table laid out for that block size.
 *
 * <p>Immutable; {@link BlockService} reads the current one with a single volatile load per request,
 * so a re-registration swaps all of it at once.
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
