package io.tarn.common.config;

/** Where the replicas of a block group record votes and log entries: see {@code tarn.replication.journal}. */
public enum JournalMode {
    /** A write-ahead journal of segment files per group on local disk, forced before acknowledging. */
    DISK,
    /** Held in memory only: acknowledged once three memories hold it; lost if all three crash at once. */
    MEMORY
}
