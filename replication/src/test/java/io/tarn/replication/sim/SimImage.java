package io.tarn.replication.sim;

import io.tarn.replication.StateImage;
import java.util.HashMap;
import java.util.Map;

/**
 * The simulator's block state image: per block, the value last written and the index of the entry
 * that wrote it (the index lets the checker verify apply order across restores).
 */
final class SimImage implements StateImage {

    private final Map<Long, long[]> blocks;

    SimImage(Map<Long, long[]> blocks) {
        this.blocks = copy(blocks);
    }

    Map<Long, long[]> blocksCopy() {
        return copy(blocks);
    }

    static Map<Long, long[]> copy(Map<Long, long[]> source) {
        Map<Long, long[]> out = new HashMap<>();
        source.forEach((k, v) -> out.put(k, v.clone()));
        return out;
    }

    int blockCount() {
        return blocks.size();
    }

    @Override
    public long sizeBytes() {
        return 16L * blocks.size();
    }
}
