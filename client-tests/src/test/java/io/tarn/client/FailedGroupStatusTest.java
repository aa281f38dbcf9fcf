package io.tarn.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.AdminProtocol.DegradedGroup;
import io.tarn.common.protocol.AdminProtocol.MemberHealth;
import io.tarn.common.protocol.AdminProtocol.ReplicationHealth;
import io.tarn.common.testing.Tmpfs;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A group that stops on a datanode whose datanode stays alive (here its journal's file system is
 * full, made for real with a small tmpfs mount) is reported to the namenode with the reason, and
 * CLUSTER_STATUS lists its member as failed, saying why: before, the namenode counted that member
 * up while it neither voted nor acknowledged.
 */
class FailedGroupStatusTest {
    private static final long BLOCK = 64 << 10;

    @TempDir
    Path tmp;
    @Test
    void aGroupStoppedOnALiveDatanodeIsListedAsFailedWithTheReason() throws Exception {
        try (Tmpfs mounted = Tmpfs.mount(tmp.resolve("journals"), "2m");
             MiniCluster cluster = MiniCluster.builder().datanodes(3).set(TarnKeys.BLOCK_SIZE, BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L).set(TarnKeys.REPLICATION_JOURNAL_DIR, mounted.path().toString())
                .set(TarnKeys.RPC_TIMEOUT, 3_000L).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            assertThatThrownBy(() -> {
                try (TarnOutputStream out = client.create("/full", CreateOptions.DEFAULT.withReplication(3))) {
                    byte[] chunk = new byte[(int) BLOCK];
                    for (int i = 0; i < 256; i++) { // 16 MiB through journals that share 2 MiB
                        out.write(chunk);
                    }
                }
            }).as("writes fail once the journals' file system is full").isInstanceOf(IOException.class);

            ReplicationHealth health = Eventually.value(Duration.ofSeconds(20), "a member listed as failed",
                    () -> replication(client), h -> h.degraded().stream().flatMap(g -> g.members().stream())
                            .anyMatch(m -> m.state() == MemberHealth.FAILED));
            assertThat(health.underReplicated()).isPositive();
            DegradedGroup g = health.degraded().get(0);
            MemberHealth failed = g.down().stream().filter(m -> m.state() == MemberHealth.FAILED).findFirst()
                    .orElseThrow();
            assertThat(failed.stateName()).isEqualTo("failed");
            assertThat(failed.failure()).as("the datanode's reason, carried by its heartbeat")
                    .contains("group " + g.groupId()).contains("No space left on device");
            assertThat(client.clusterStatus().datanodes()).as("the datanodes themselves are alive")
                    .allMatch(d -> d.alive());
        }
    }

    private static ReplicationHealth replication(TarnClient client) {
        try {
            return client.clusterStatus().replication();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
