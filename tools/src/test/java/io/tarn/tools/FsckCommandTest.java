package io.tarn.tools;

import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.AdminProtocol.DamagedFile;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * tarn fsck and tarn status against real clusters: healthy, then with the blocks of a datanode that
 * stopped without its data (MISSING) and of one that crashed and fell silent (UNAVAILABLE).
 */
class FsckCommandTest {
    private static void write(TarnClient client, String path, int bytes) throws Exception {
        try (TarnOutputStream out = client.create(path)) {
            out.write(new byte[bytes]);
        }
    }

    @Test
    void aHealthyClusterIsHealthy() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1).set(TarnKeys.BLOCK_SIZE, 64L << 10).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            write(client, "/ok/f", 100_000);
            Cli.Result r = Cli.against(cluster, "fsck");
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.out()).contains("Damaged files: 0\n").contains("Status: HEALTHY\n")
                    .doesNotContain("blocks MISSING", "block MISSING");
        }
    }

    @Test
    void filesOfAStoppedDatanodeAreMissingAndOfASilentOneUnavailable() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1).set(TarnKeys.BLOCK_SIZE, 64L << 10)
                .set(TarnKeys.DATANODE_TIMEOUT, 300L).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            write(client, "/d/a", 100_000); // two blocks
            write(client, "/d/b", 1_000);
            write(client, "/e/c", 1_000);
            client.mkdirs("/empty");
            cluster.stopDatanode(0); // tarn.datanode.dram.keep is false: its data is gone
            Eventually.within(Duration.ofSeconds(20), "the namenode's scan",
                    () -> cluster.namenode().service().health().last().damagedFiles() == 3);

            Cli.Result all = Cli.against(cluster, "fsck");
            assertThat(all.exit()).as(all.toString()).isEqualTo(1);
            assertThat(all.out()).contains("/d/a: 2 of 2 blocks MISSING\n", "/d/b: 1 of 1 block MISSING\n",
                    "/e/c: 1 of 1 block MISSING\n", "Damaged files: 3\n", "Lost blocks (MISSING): 4\n",
                    "Status: CORRUPT\n");
            Cli.Result under = Cli.against(cluster, "fsck", "/d");
            assertThat(under.out()).contains("/d/a:", "/d/b:", "Damaged files: 3 in the whole namespace, 2 under /d")
                    .doesNotContain("/e/c:");
            Cli.Result elsewhere = Cli.against(cluster, "fsck", "/empty");
            assertThat(elsewhere.exit()).as(elsewhere.toString()).isZero();
            assertThat(elsewhere.out()).contains("Status: HEALTHY");
            Cli.Result status = Cli.against(cluster, "status", "--interval", "0");
            assertThat(status.out()).contains("WARNING: 3 files have blocks that cannot be read");

            cluster.addDatanode();
            write(client, "/later/d", 1_000);
            int fresh = cluster.datanodeCount() - 1;
            cluster.crashDatanode(fresh);
            Eventually.within(Duration.ofSeconds(20), "the silent datanode's files counted",
                    () -> cluster.namenode().service().health().last().unavailableBlocks() == 1);
            Cli.Result silent = Cli.against(cluster, "fsck", "/later");
            assertThat(silent.out()).contains("/later/d: 1 of 1 block UNAVAILABLE\n",
                    "Blocks on datanodes that are down (UNAVAILABLE): 1\n", "Status: CORRUPT");
        }
    }

    @Test
    void linesNameBothKindsOfDamage() {
        assertThat(FsckCommand.line(new DamagedFile("/x", 1, 3, 2, 1)))
                .isEqualTo("/x: 2 of 3 blocks MISSING, 1 UNAVAILABLE");
        assertThat(FsckCommand.under("/a/b", "/a")).isTrue();
        assertThat(FsckCommand.under("/ab", "/a")).isFalse();
        assertThat(FsckCommand.under("/a", "/a")).isTrue();
    }

    @Test
    void aBadMaxIsAUsageError() {
        Cli.Result r = Cli.run("fsck", "--max", "10001");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--max must be between 0 and 10000, got 10001");
    }
}
