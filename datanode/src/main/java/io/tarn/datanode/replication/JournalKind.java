package io.tarn.datanode.replication;

import io.tarn.common.config.ConfigKey;

/** Which journal a datanode gives its replicas: {@code tarn.replication.journal}. */
public enum JournalKind {
    /** {@link GroupJournal}: segment files per group, group commit, survives crashes (the default). */
    FILE,
    /** {@link MemoryJournal}: acknowledges at once, keeps nothing across restarts. */
    MEMORY;

    /** The configuration key choosing the kind ({@code file} or {@code memory}). */
    public static final ConfigKey<JournalKind> KEY = ConfigKey.choice("tarn.replication.journal", FILE,
            JournalKind.class, "Where replicas record votes and log entries: 'file' (durable write-ahead journal "
                    + "with group commit) or 'memory' (acknowledged at once, lost on restart; tests only).");
}
