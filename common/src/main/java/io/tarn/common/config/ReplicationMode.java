package io.tarn.common.config;

/** How a block group's replicas commit and apply: see {@code tarn.replication.mode}. */
public enum ReplicationMode {
    /** ParallelRaft: entries that touch different bytes are acknowledged, committed and applied out of order. */
    PARALLEL,
    /** Raft's order: every entry commits and applies after the one before it. */
    IN_ORDER
}
