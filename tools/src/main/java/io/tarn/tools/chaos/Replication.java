package io.tarn.tools.chaos;

import java.util.Map;

/**
 * What a chaos run needs to know about replication: the keys that give new files {@code factor}
 * copies, and the check that compares the copies. Tarn has no replication yet (ParallelRaft in the
 * datanodes is being built, issue #20), so only factor 1 runs; this class is the one place the
 * replication work switches on.
 */
final class Replication {
    private Replication() {
    }

    /** Configuration keys for every daemon and client for {@code factor} copies per block. */
    static Map<String, String> keys(int factor) {
        check(factor);
        return Map.of();
    }

    /** The replica comparison of the verdict. */
    static ReplicaCheck check(int factor) {
        if (factor == 1) {
            return ReplicaCheck.singleCopy();
        }
        throw new IllegalArgumentException("--replication " + factor + " is not available yet: Tarn keeps one copy "
                + "of every block until replication into the datanodes lands (issue #20); run with --replication 1");
    }
}
