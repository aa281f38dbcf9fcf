package io.tarn.replication;

/** How a replica orders the commit and apply of log entries. */
public enum Mode {
    /**
     * ParallelRaft: followers persist and acknowledge entries in arrival order, the leader commits
     * each entry on its own majority, and entries apply as soon as no unapplied predecessor in the
     * look-behind window overlaps them.
     */
    PARALLEL,
    /**
     * Classic Raft ordering on the same core: followers persist only the contiguous prefix (later
     * arrivals wait in a bounded reorder buffer), commit and apply advance strictly in log order.
     */
    IN_ORDER
}
