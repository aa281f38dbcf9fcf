package io.tarn.client;

import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A datanode dies (kill -9: no goodbye) and new writers start at once, long before the namenode's
 * liveness timeout would notice: the first writer that cannot reach it reports it, gets a
 * replacement block elsewhere, and the namenode allocates no new block there for anyone; every
 * writer succeeds, and the datanode shows as unreachable in the cluster status.
 */
class DeadDatanodeWritersTest {
    private static final int BLOCK = 64 << 10;
    private static final long TIMEOUT_MS = 10_000;
    private static final int WRITERS = 16;

    @ParameterizedTest
    @EnumSource(value = ShortCircuitMode.class, names = {"OFF", "AUTO"})
    void newWritersGoAroundADatanodeThatJustDied(ShortCircuitMode mode) throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(3).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DATANODE_TIMEOUT, TIMEOUT_MS).start();
             TarnClient client = TarnClient.connect(cluster.config().toBuilder()
                     .set(TarnKeys.CLIENT_SHORTCIRCUIT, mode).build())) {
            // Where blocks go now (the datanodes share this host: the first one, by location affinity).
            FileStatus warm = write(client, "/warm", 100, 0);
            int victimPort = client.getBlocks(warm.fileId(), 0, 1).get(0).port();
            int victim = -1;
            for (int i = 0; i < cluster.datanodeCount(); i++) {
                if (cluster.datanode(i).address().getPort() == victimPort) {
                    victim = i;
                }
            }
            assertThat(victim).as("the datanode holding /warm").isNotNegative();
            cluster.crashDatanode(victim);

            long start = System.nanoTime();
            ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
            List<Future<FileStatus>> done = new ArrayList<>();
            try {
                for (int w = 0; w < WRITERS; w++) {
                    int n = w;
                    done.add(pool.submit(() -> write(client, "/after/f" + n, 2 * BLOCK + 123 * n, n)));
                }
                List<FileStatus> files = new ArrayList<>();
                for (Future<FileStatus> f : done) {
                    files.add(f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
                }
                long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(elapsedMs).as("every writer done well before the liveness timeout")
                        .isLessThan(TIMEOUT_MS / 2);
                for (int w = 0; w < WRITERS; w++) {
                    FileStatus f = files.get(w);
                    assertThat(f.size()).isEqualTo(2L * BLOCK + 123 * w);
                    for (BlockRef b : client.getBlocks(f.fileId(), 0, 16)) {
                        assertThat(b.port()).as("block %d of %s", b.blockIndex(), f.name()).isNotEqualTo(victimPort);
                    }
                    try (TarnInputStream in = client.open("/after/f" + w)) {
                        assertThat(in.readAllBytes()).isEqualTo(ClusterFailuresTest.random(2 * BLOCK + 123 * w, w));
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            DatanodeStatus dead = client.clusterStatus().datanodes().stream().filter(d -> d.port() == victimPort)
                    .findFirst().orElseThrow();
            assertThat(dead.stateName()).as("what tarn status shows").isEqualTo("unreachable");
        }
    }

    private static FileStatus write(TarnClient client, String path, int size, long seed) throws Exception {
        try (TarnOutputStream out = client.create(path)) {
            out.write(ClusterFailuresTest.random(size, seed));
        }
        return client.getStatus(path);
    }
}
