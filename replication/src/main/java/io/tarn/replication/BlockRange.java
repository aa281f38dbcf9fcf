package io.tarn.replication;

/**
 * A contiguous run of blocks inside one block group, the unit ParallelRaft reasons about when it
 * decides whether two log entries conflict.
 *
 * <p>Two ranges conflict when they share at least one block; the empty range (count zero, used by
 * no-op entries) conflicts with nothing. Instances are immutable values.
 *
 * @param first index of the first block, relative to the start of the group (non-negative)
 * @param count number of blocks (zero only for the empty range)
 */
public record BlockRange(long first, int count) {

    /** The range of a no-op entry: it writes nothing and never conflicts. */
    public static final BlockRange EMPTY = new BlockRange(0, 0);

    /** Validates the components. */
    public BlockRange {
        if (first < 0 || count < 0) {
            throw new IllegalArgumentException("negative range " + first + "+" + count);
        }
    }

    /** Whether this range and {@code other} share a block. */
    public boolean overlaps(BlockRange other) {
        return count > 0 && other.count > 0
                && first < other.first + other.count
                && other.first < first + count;
    }

    /** One past the last block. */
    public long end() {
        return first + count;
    }

    /** Whether the range holds no block. */
    public boolean isEmpty() {
        return count == 0;
    }
}
