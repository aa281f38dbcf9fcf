package io.tarn.replication;

import java.util.Collections;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything a replica keeps on disk; the host rebuilds it from the completed {@link DiskOp}s after
 * a restart and passes it to a new {@link Replica}.
 *
 * @param currentTerm the latest term the replica has seen
 * @param votedFor    whom it voted for in {@code currentTerm}, or {@link #NO_VOTE}
 * @param voter       whether it counts in quorums; false for a replica rebuilt after disk loss
 *                    until the leader promotes it
 * @param syncedTerm  the term whose leader last synced its merged log here (the vote compares it)
 * @param syncEnd     the last index of that merged log
 * @param entries     the log entries above the checkpoint, by index (may have holes)
 * @param checkpoint  the latest durable checkpoint
 */
public record PersistentState(long currentTerm, int votedFor, boolean voter, long syncedTerm, long syncEnd,
                              NavigableMap<Long, LogEntry> entries, Checkpoint checkpoint) {

    /** Marks the absence of a vote. */
    public static final int NO_VOTE = -1;

    /** Freezes the entry map. */
    public PersistentState {
        Objects.requireNonNull(checkpoint, "checkpoint");
        entries = Collections.unmodifiableNavigableMap(new TreeMap<>(entries));
        if (syncedTerm > currentTerm) {
            throw new IllegalArgumentException("synced term ahead of current term");
        }
    }

    /** The state of a founding member of a new group. */
    public static PersistentState initialVoter() {
        return new PersistentState(0, NO_VOTE, true, 0, 0, new TreeMap<>(), Checkpoint.INITIAL);
    }

    /** The state of a replica whose disk was lost: it rejoins as a non-voter. */
    public static PersistentState wiped() {
        return new PersistentState(0, NO_VOTE, false, 0, 0, new TreeMap<>(), Checkpoint.INITIAL);
    }
}
