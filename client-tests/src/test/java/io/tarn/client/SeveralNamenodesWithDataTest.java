package io.tarn.client;

import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Partitions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Data through a MiniCluster of several namenodes: every datanode serves every namenode, files of
 * one directory spread over all of them, and what is written reads back (docs/partitioning.md).
 */
class SeveralNamenodesWithDataTest {

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void filesWrittenThroughEveryNamenodeReadBack(int namenodes) throws IOException {
        int block = 64 << 10;
        try (MiniCluster cluster = MiniCluster.builder().namenodes(namenodes).datanodes(2)
                .set(TarnKeys.BLOCK_SIZE, (long) block).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/spark/shuffle");
            int files = 24;
            for (int m = 0; m < files; m++) {
                try (TarnOutputStream out = client.create("/spark/shuffle/shuffle_0_" + m + "_0.data")) {
                    out.write(StreamsTest.random(block + 100 * m, m));
                }
            }
            for (int p = 0; p < namenodes; p++) {
                assertThat(cluster.namenode(p).fileCount()).as("files on namenode %d", p).isPositive();
            }
            assertThat(client.list("/spark/shuffle")).hasSize(files);
            for (int m = 0; m < files; m++) {
                String name = "shuffle_0_" + m + "_0.data";
                FileStatus s = client.getStatus("/spark/shuffle/" + name);
                assertThat(FileIds.partition(s.fileId())).isEqualTo(Partitions.ofName(name, namenodes));
                try (InputStream in = client.open("/spark/shuffle/" + name)) {
                    assertThat(Arrays.equals(in.readAllBytes(), StreamsTest.random(block + 100 * m, m)))
                            .as(name).isTrue();
                }
            }
            for (int m = 0; m < files; m++) {
                assertThat(client.delete("/spark/shuffle/shuffle_0_" + m + "_0.data", false)).isTrue();
            }
            assertThat(client.list("/spark/shuffle")).isEmpty();
            try (TarnOutputStream out = client.create("/spark/shuffle/last.data")) {
                out.write(StreamsTest.random(3 * block, 1));
            }
            assertThat(client.delete("/spark", true)).isTrue();
            assertThat(client.list("/")).isEmpty();
            for (int p = 0; p < namenodes; p++) {
                assertThat(cluster.namenode(p).fileCount()).isZero();
                assertThat(cluster.namenode(p).directoryCount()).as("only the root").isEqualTo(1);
            }
        }
    }
}
