package io.tarn.hadoop;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import org.apache.hadoop.fs.FsStatus;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How the file system's capacity, used and free space come out of every namenode's view of the datanodes. */
class ClusterCapacityTest {
    private static final int BLOCK = 1 << 20;

    private static DatanodeStatus datanode(int port, int state, long capacityBlocks, long freeBlocks) {
        return new DatanodeStatus(1, "10.0.0.1", port, 0, state, capacityBlocks, freeBlocks, 10);
    }

    private static CompletableFuture<ClusterStatus> sees(DatanodeStatus... datanodes) {
        return CompletableFuture.completedFuture(new ClusterStatus(1000, 0, 1, 0, BLOCK, List.of(datanodes)));
    }

    @Test
    void oneNamenodeCountsItsLiveDatanodesOnly() throws IOException {
        FsStatus status = ClusterCapacity.sum(Map.of("nn0:9060", sees(
                datanode(1, DatanodeStatus.ALIVE, 100, 40),
                datanode(2, DatanodeStatus.SILENT, 100, 100),
                datanode(3, DatanodeStatus.STOPPED, 100, 100))));
        assertThat(status.getCapacity()).isEqualTo(100L * BLOCK);
        assertThat(status.getRemaining()).isEqualTo(40L * BLOCK);
        assertThat(status.getUsed()).isEqualTo(60L * BLOCK);
    }

    @Test
    void theSharesOfSeveralNamenodesAddUp() throws IOException {
        // Two datanodes of 8 blocks, each split 4 + 4 between two namenodes; only namenode 1 has used any.
        Map<String, CompletableFuture<ClusterStatus>> each = new LinkedHashMap<>();
        each.put("nn0:9060", sees(datanode(1, DatanodeStatus.ALIVE, 4, 4), datanode(2, DatanodeStatus.ALIVE, 4, 4)));
        each.put("nn1:9060", sees(datanode(1, DatanodeStatus.ALIVE, 4, 3), datanode(2, DatanodeStatus.ALIVE, 4, 2)));
        FsStatus status = ClusterCapacity.sum(each);
        assertThat(status.getCapacity()).isEqualTo(16L * BLOCK);
        assertThat(status.getRemaining()).isEqualTo(13L * BLOCK);
        assertThat(status.getUsed()).as("used on namenode 1 counts though namenode 0 used nothing")
                .isEqualTo(3L * BLOCK);
    }

    @Test
    void aDatanodeOneNamenodeDeclaredDeadCountsOnlyWhereItIsAlive() throws IOException {
        Map<String, CompletableFuture<ClusterStatus>> each = new LinkedHashMap<>();
        each.put("nn0:9060", sees(datanode(1, DatanodeStatus.ALIVE, 4, 1)));
        each.put("nn1:9060", sees(datanode(1, DatanodeStatus.SILENT, 4, 4)));
        FsStatus status = ClusterCapacity.sum(each);
        assertThat(status.getCapacity()).isEqualTo(4L * BLOCK);
        assertThat(status.getUsed()).isEqualTo(3L * BLOCK);
    }

    @Test
    void aNamenodeThatDoesNotAnswerIsLeftOut() throws IOException {
        Map<String, CompletableFuture<ClusterStatus>> each = new LinkedHashMap<>();
        each.put("nn0:9060", sees(datanode(1, DatanodeStatus.ALIVE, 4, 2)));
        each.put("nn1:9060", CompletableFuture.failedFuture(
                new TarnException(ErrorCode.CONNECTION_LOST, "nn1:9060: connection refused")));
        FsStatus status = ClusterCapacity.sum(each);
        assertThat(status.getCapacity()).isEqualTo(4L * BLOCK);
        assertThat(status.getRemaining()).isEqualTo(2L * BLOCK);
    }

    @Test
    void noNamenodeAnsweringFailsWithTheFirstError() {
        Map<String, CompletableFuture<ClusterStatus>> each = new LinkedHashMap<>();
        each.put("nn0:9060", CompletableFuture.failedFuture(
                new TarnException(ErrorCode.CONNECTION_LOST, "nn0:9060: connection refused")));
        each.put("nn1:9060", CompletableFuture.failedFuture(
                new TarnException(ErrorCode.CONNECTION_LOST, "nn1:9060: connection refused")));
        assertThatThrownBy(() -> ClusterCapacity.sum(each)).isInstanceOf(TarnException.class)
                .hasMessageContaining("nn0:9060");
    }
}
