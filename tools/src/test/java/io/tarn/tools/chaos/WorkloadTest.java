package io.tarn.tools.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.client.TarnClient;
import io.tarn.common.config.TarnKeys;
import io.tarn.minicluster.MiniCluster;
import io.tarn.tools.chaos.check.Operation;

import java.io.FileNotFoundException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chaos workload against a real cluster that runs out of space. */
class WorkloadTest {
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path dir;

    /**
     * A write refused a block for space moved no byte and its file, never closed, is deleted: it is
     * recorded failed, not indeterminate (which would let the checker place it anywhere), and its
     * key stays absent.
     */
    @Test
    void aWriteRefusedForSpaceIsRecordedFailedAndItsFileIsGone() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DRAM_CAPACITY, 16L * BLOCK).set(TarnKeys.DRAM_REGION_SIZE, 16L * BLOCK).start();
             History history = new History(dir.resolve("history.jsonl"))) {
            Workload workload = new Workload(cluster.config(), history, 2, 7, 64);
            workload.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (failedWrites(history).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            workload.stop(5_000);
            List<Operation> failed = failedWrites(history);
            assertThat(failed).as("writes refused for space once 16 blocks are taken").isNotEmpty();
            assertThat(workload.counts()).as("no write ended in an error that leaves it indeterminate: only space "
                    + "ran out (one still running when the workload stopped is not counted)")
                    .doesNotContainKey("write indeterminate").containsKey("write failed");
            assertThat(workload.acknowledged()).hasSizeBetween(1, 16);
            try (TarnClient client = TarnClient.connect(cluster.config())) {
                for (Operation o : failed) {
                    assertThat(absent(client, o.key())).as("file of failed write %s", o.key()).isTrue();
                }
            }
        }
    }

    private static List<Operation> failedWrites(History history) {
        return history.operations().stream()
                .filter(o -> o.kind() == Operation.Kind.WRITE && o.outcome() == Operation.Outcome.FAILED).toList();
    }

    private static boolean absent(TarnClient client, String key) throws Exception {
        try {
            client.getStatus(Workload.path(key));
            return false;
        } catch (FileNotFoundException e) {
            return true;
        }
    }
}
