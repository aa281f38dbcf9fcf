package io.tarn.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.AdminProtocol.DegradedGroup;
import io.tarn.common.protocol.AdminProtocol.MemberHealth;
import io.tarn.common.protocol.AdminProtocol.ReplicationHealth;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
    private Path mounted;

    /** Runs a command; returns its output, or {@code null} when it failed. */
    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted != null) {
            run("umount", "-l", mounted.toString());
        }
    }

    @Test
    void aGroupStoppedOnALiveDatanodeIsListedAsFailedWithTheReason() throws Exception {
        Path journals = tmp.resolve("journals");
        Files.createDirectories(journals);
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", journals.toString()) != null,
                "skipped: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)");
        mounted = journals;
        try (MiniCluster cluster = MiniCluster.builder().datanodes(3).set(TarnKeys.BLOCK_SIZE, BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L).set(TarnKeys.REPLICATION_JOURNAL_DIR, journals.toString())
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
