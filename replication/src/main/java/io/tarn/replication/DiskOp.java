package io.tarn.replication;

import java.util.List;

/**
 * A write the replica asks its host to make durable. The host must complete operations in the
 * order they were issued, each atomically, and report completion with
 * {@link Replica#onDiskComplete(long)}; a crash may lose any suffix of operations not yet
 * reported. This is the contract of a write-ahead journal with group commit. The replica acts on
 * a write (acknowledges, votes, replies) only after its completion.
 */
public sealed interface DiskOp {

    /** Identifier, increasing per replica instance, used in the completion callback. */
    long id();

    /**
     * Records the term, the vote and the voter flag.
     *
     * @param id          operation id
     * @param currentTerm term to record
     * @param votedFor    vote to record, or {@link PersistentState#NO_VOTE}
     * @param voter       whether the replica counts in quorums
     */
    record PersistHardState(long id, long currentTerm, int votedFor, boolean voter) implements DiskOp {
    }

    /**
     * Writes entries at their indices, replacing whatever was there.
     *
     * @param id      operation id
     * @param entries the entries
     */
    record PersistEntries(long id, List<LogEntry> entries) implements DiskOp {
        /** Freezes the list. */
        public PersistEntries {
            entries = List.copyOf(entries);
        }
    }

    /**
     * Atomically replaces the log above {@code baseIndex} with {@code entries} (dropping every other
     * entry above {@code baseIndex}) and records the synced term and sync end.
     *
     * @param id         operation id
     * @param syncedTerm the leader term whose merged log this is
     * @param baseIndex  entries up to here are kept
     * @param syncEnd    last index of the merged log
     * @param entries    the entries {@code baseIndex+1..syncEnd}
     */
    record PersistSync(long id, long syncedTerm, long baseIndex, long syncEnd, List<LogEntry> entries)
            implements DiskOp {
        /** Freezes the list. */
        public PersistSync {
            entries = List.copyOf(entries);
        }
    }

    /**
     * Atomically records a checkpoint and drops log entries at or below {@code compactTo}.
     *
     * @param id         operation id
     * @param checkpoint the checkpoint
     * @param compactTo  entries up to here are no longer needed
     */
    record SaveCheckpoint(long id, Checkpoint checkpoint, long compactTo) implements DiskOp {
    }
}
