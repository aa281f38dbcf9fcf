package io.tarn.replication.host;

import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.StateImage;

/**
 * The state of one replica of one group: what {@link GroupRunner} applies committed writes to and
 * serves reads from. Called only from the group's loop thread, in the order the replica's effects
 * require. A datanode's block group keeps a region of blocks; what a range means is the store's
 * business (bytes of the region there).
 */
public interface GroupStore {

    /** Writes a committed entry's payload to its range (never a no-op or a duplicate). */
    void apply(LogEntry entry);

    /**
     * Copies the bytes of {@code range} as they are now; the caller owns the array. Used to answer
     * a read the replica allowed, before any later effect is performed.
     */
    byte[] read(BlockRange range);

    /** An image of the whole state as it is now, described by {@code meta}. */
    StateImage capture(CheckpointMeta meta);

    /**
     * The size every image of the group has (a block group's: its region and generations), which a
     * member checks an image sent to it against; -1 when images vary in size.
     */
    default long imageBytes() {
        return capture(CheckpointMeta.INITIAL).sizeBytes();
    }

    /** Replaces the whole state with a checkpoint image received from the leader. */
    void restore(Checkpoint checkpoint);
}
