package io.tarn.datanode.dram;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.Test;

/**
 * A datanode accepts frames as large as replication messages between datanodes may be: a 1 MiB
 * write fills a 16 MiB frame with fewer than 16 entries, and a follower's catch-up carries the
 * entries since its last acknowledgment.
 */
class ReplicationFramesTest {

    @Test
    void theFrameLimitCoversCatchUpAndAppendsOfWholeBlocks() {
        TarnConfig raised = DramDatanode.replicationFrames(TarnConfig.defaults());
        long expected = TarnKeys.REPLICATION_CHECKPOINT_BYTES.defaultValue()
                + 2 * TarnKeys.REPLICATION_MAX_BYTES_IN_FLIGHT.defaultValue()
                + TarnKeys.REPLICATION_WINDOW.defaultValue() * TarnKeys.BLOCK_SIZE.defaultValue();
        assertThat(raised.get(TarnKeys.RPC_MAX_FRAME)).isEqualTo(expected).isGreaterThan(16L << 20);
    }

    @Test
    void aLargerConfiguredLimitIsKept() {
        TarnConfig big = TarnConfig.builder().set(TarnKeys.RPC_MAX_FRAME, 512L << 20).build();
        assertThat(DramDatanode.replicationFrames(big)).isSameAs(big);
    }
}
