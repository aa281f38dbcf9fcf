package io.tarn.tools.chaos;

import io.tarn.common.config.TarnKeys;

import java.util.Map;

/**
 * What a chaos run needs to know about replication: the keys that give new files {@code factor}
 * copies, and the check that compares the copies. Tarn keeps a block once (1) or in a group of three
 * datanodes (3).
 */
final class Replication {
    private Replication() {
    }

    /** Configuration keys for every daemon and client for {@code factor} copies per block. */
    static Map<String, String> keys(int factor) {
        check(factor);
        if (factor == 1) {
            return Map.of();
        }
        // 32 MiB regions: larger than the largest frame (tarn.rpc.max.frame, 16 MiB), so a member
        // catching up from a checkpoint receives its image in chunks, as on a real cluster.
        // Members replaced 5 s after their datanode is declared dead: longer than any kill, pause,
        // isolation or restart the schedule holds, so only a wipe (whose datanode never comes back
        // under its old identity) is repaired, and the repair is over long before the run is.
        return Map.of(TarnKeys.REPLICATION_DEFAULT.name(), String.valueOf(factor),
                TarnKeys.DRAM_REGION_SIZE.name(), "32m", TarnKeys.DATANODE_REPLACE_AFTER.name(), "5000");
    }

    /** The replica comparison of the verdict. */
    static ReplicaCheck check(int factor) {
        if (factor == 1) {
            return ReplicaCheck.singleCopy();
        }
        if (factor == 3) {
            return new GroupReplicaCheck();
        }
        throw new IllegalArgumentException("--replication " + factor + ": Tarn keeps 1 or 3 copies of a block");
    }
}
