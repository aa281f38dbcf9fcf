package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Checkpoints come after {@code checkpointInterval} applied entries or {@code checkpointBytes}
 * applied payload bytes, whichever is first, so the log a replica keeps in memory is bounded by
 * bytes as well as by entries.
 */
class CheckpointBytesTest {

    private static void writeMany(TestCluster c, int leader, int count) {
        for (int seq = 1; seq <= count; seq++) {
            c.write(leader, 9, seq, seq % 16, 1, seq);
        }
    }

    @Test
    void appliedBytesStartACheckpointBeforeTheEntryCountDoes() {
        ReplicationConfig byEntries = ReplicationConfig.builder().checkpointInterval(1000).build();
        TestCluster few = new TestCluster(byEntries, 3);
        int leader = few.electLeader();
        writeMany(few, leader, 12);
        assertThat(few.r(leader).checkpointIndex()).as("12 small writes: under both bounds").isZero();

        // Each test payload claims 8 bytes: 40 bytes are five writes.
        TestCluster small = new TestCluster(byEntries.toBuilder().checkpointBytes(40).build(), 3);
        leader = small.electLeader();
        writeMany(small, leader, 12);
        small.tick(3 * byEntries.heartbeatTicks());
        for (int id = 0; id < 3; id++) {
            assertThat(small.r(id).checkpointIndex()).as("replica %d", id).isPositive();
        }
        assertThat(small.data.get(0)).isEqualTo(small.data.get(leader));
    }

    @Test
    void aNonPositiveByteBoundIsRefused() {
        assertThatThrownBy(() -> ReplicationConfig.builder().checkpointBytes(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("checkpointBytes");
    }
}
