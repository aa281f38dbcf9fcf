package io.tarn.namenode;

import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tarn.namenode.expire.dirs} on three journaled namenodes: the first partition's namenode
 * expires an idle subdirectory through the coordinator, so it goes, with files on every partition,
 * from every namenode, and stays gone when the namenodes restart from their journals; a
 * subdirectory whose time a client keeps setting stays.
 */
class DirectoryExpiryClusterTest {
    private static final int NAMENODES = 3;

    private static boolean gone(MiniCluster cluster, String path) {
        for (int p = 0; p < NAMENODES; p++) {
            try {
                if (cluster.namenode(p).service().namespace().find(path) != null) {
                    return false;
                }
            } catch (Exception e) {
                // not on this namenode
            }
        }
        return true;
    }

    @Test
    void anIdleSubdirectoryGoesFromEveryNamenodeAndARenewedOneStays() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().namenodes(NAMENODES).datanodes(1)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK)
                .set(TarnKeys.NAMENODE_EXPIRE_DIRS, "/jobs=2s").start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/jobs/dead");
            client.mkdirs("/jobs/live");
            long before = 0;
            for (int p = 0; p < NAMENODES; p++) {
                before += cluster.namenode(p).service().namespace().fileCount();
            }
            for (int i = 0; i < 12; i++) { // names hash to every partition
                try (TarnOutputStream out = client.create("/jobs/dead/part-" + i)) {
                    out.write(new byte[] {(byte) i});
                }
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!gone(cluster, "/jobs/dead") && System.nanoTime() < deadline) {
                client.setTimes("/jobs/live", System.currentTimeMillis(), -1); // as a live driver renews
                Thread.sleep(300);
            }
            assertThat(gone(cluster, "/jobs/dead")).as("/jobs/dead on every namenode").isTrue();
            assertThat(client.exists("/jobs/dead")).isFalse();
            assertThat(client.exists("/jobs/live")).isTrue();
            long after = 0;
            for (int p = 0; p < NAMENODES; p++) {
                after += cluster.namenode(p).service().namespace().fileCount();
            }
            assertThat(after).as("files on all namenodes after the expiry").isEqualTo(before);

            for (int p = 0; p < NAMENODES; p++) {
                cluster.stopNamenode(p);
                cluster.startNamenode(p);
            }
            Eventually.within(Duration.ofSeconds(20), "the namenodes back",
                    () -> cluster.namenode(0).serving());
            assertThat(gone(cluster, "/jobs/dead")).as("/jobs/dead after the restarts").isTrue();
            assertThat(cluster.namenode(0).service().namespace().find("/jobs/live")).isNotNull();
        }
    }
}
