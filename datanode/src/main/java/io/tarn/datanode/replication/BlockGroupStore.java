package io.tarn.datanode.replication;

import io.tarn.replication.host.GroupStore;

/**
 * A block group's state on this datanode: {@link GroupStore} over a region of blocks, with what the
 * datanode checks a client's request against before it reaches the group ({@link ReplicaService}).
 * Ranges are bytes relative to the start of the group's region.
 */
public interface BlockGroupStore extends GroupStore {

    /** Bytes per slot (block) of the group. */
    int blockSize();

    /** Slots (blocks) of the group. */
    int slots();

    /** The generation this replica holds for {@code slot} (0 when never written). */
    int generation(int slot);

    /** The region of this datanode's store holding the replica (for token checks). */
    int region();
}
