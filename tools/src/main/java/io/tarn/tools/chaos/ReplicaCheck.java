package io.tarn.tools.chaos;

import io.tarn.common.config.TarnConfig;

import java.io.IOException;
import java.util.Collection;

/**
 * The last part of a chaos verdict: at quiescence, every replica of every block of the given files
 * holds the same bytes. Implemented by the replication work, which knows where a block's replicas
 * are and how to read each one; with one copy per block there is nothing to compare, and the
 * verdict says so rather than claiming a pass.
 */
public interface ReplicaCheck {
    /** What the comparison found. */
    enum Status { IDENTICAL, DIFFERENT, NOT_APPLICABLE }

    /** The finding, with a line for the report (which blocks differ, or why nothing was compared). */
    record Result(Status status, String detail) {
    }

    /**
     * Compares the replicas of every block of {@code paths} (files of the workload, all closed),
     * using clients configured by {@code clientConfig}.
     */
    Result compare(Collection<String> paths, TarnConfig clientConfig) throws IOException;

    /** The check for clusters whose blocks have one copy: nothing to compare. */
    static ReplicaCheck singleCopy() {
        return (paths, config) -> new Result(Status.NOT_APPLICABLE,
                "not checked: replication 1, every block has a single copy, so there are no replicas to compare");
    }
}
