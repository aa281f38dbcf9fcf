package io.tarn.replication;

import java.util.List;

/**
 * One client's at-most-once record inside a checkpoint.
 *
 * @param floor       every sequence below it was applied (or can never be retried)
 * @param appliedSeqs sequences at or above the floor that were applied, ascending
 */
public record SessionSnapshot(long floor, List<Long> appliedSeqs) {

    /** Freezes the list. */
    public SessionSnapshot {
        appliedSeqs = List.copyOf(appliedSeqs);
    }
}
