package io.tarn.minicluster;

import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link MiniCluster.Builder#dataRoot}: the datanodes' region files go under it, and go at close. */
class MiniClusterDataRootTest {
    @TempDir
    Path root;

    @Test
    void regionFilesLiveUnderTheDataRootUntilClose() throws Exception {
        Path dataRoot = root.resolve("regions");
        try (MiniCluster cluster = MiniCluster.builder().datanodes(2).dataRoot(dataRoot)
                .set(TarnKeys.DRAM_CAPACITY, 4L << 20).set(TarnKeys.DRAM_REGION_SIZE, 1L << 20)
                .set(TarnKeys.BLOCK_SIZE, 64L << 10).start()) {
            assertThat(regionFiles(dataRoot)).as("4 regions for each of 2 datanodes").hasSize(8);
        }
        assertThat(dataRoot).isDirectory();
        assertThat(regionFiles(dataRoot)).as("removed at close").isEmpty();
    }

    private static List<Path> regionFiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("region-")).toList();
        }
    }
}
