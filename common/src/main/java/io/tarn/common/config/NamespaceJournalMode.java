package io.tarn.common.config;

/** Whether a namenode keeps its namespace on disk: see {@code tarn.namenode.journal}. */
public enum NamespaceJournalMode {
    /** Every mutation is in a write-ahead journal on local disk before it is acknowledged. */
    DISK,
    /** Nothing is kept: a restarted namenode starts empty (for purely ephemeral scratch data). */
    NONE
}
