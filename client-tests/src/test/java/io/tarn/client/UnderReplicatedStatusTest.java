package io.tarn.client;

import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.common.protocol.AdminProtocol.DegradedGroup;
import io.tarn.common.protocol.AdminProtocol.MemberHealth;
import io.tarn.common.protocol.AdminProtocol.ReplicationHealth;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CLUSTER_STATUS reports the block groups with a member down, end to end: a file of replication 3
 * on three of four datanodes, one member crashed (kill -9 style) and later restarted on its storage,
 * another stopped cleanly without keeping its memory. The namenode names the group, its members and
 * the member that is down, with its state and how long it has been silent, and stops listing the
 * group once the member is back with its copy.
 */
class UnderReplicatedStatusTest {
    private static final long BLOCK = 64 << 10;
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static MiniCluster cluster() throws IOException {
        return MiniCluster.builder().datanodes(4).set(TarnKeys.BLOCK_SIZE, BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L).set(TarnKeys.DATANODE_TIMEOUT, 500L).start();
    }

    private static int indexOf(MiniCluster cluster, GroupMember m) {
        for (int i = 0; i < cluster.datanodeCount(); i++) {
            if (cluster.datanode(i).address().getPort() == m.port()) {
                return i;
            }
        }
        throw new AssertionError("no datanode serves port " + m.port());
    }

    private static ReplicationHealth replication(TarnClient client) {
        try {
            return client.clusterStatus().replication();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A file of replication 3 with one block written: its group. */
    private static BlockGroup replicatedFile(TarnClient client, String path) throws IOException {
        try (TarnOutputStream out = client.create(path, CreateOptions.DEFAULT.withReplication(3))) {
            out.write(new byte[1000]);
        }
        BlockGroup g = client.getBlock(client.getStatus(path).fileId(), 0).group();
        assertThat(g).as("a block of replication 3 has a group").isNotNull();
        return g;
    }

    /**
     * A block reference marks the members the namenode counts down, so that block locations leave
     * them out as HDFS leaves out dead datanodes, and stops once the member is back.
     */
    @Test
    void aBlockReferenceMarksACrashedMemberDownUntilItIsBack() throws Exception {
        try (MiniCluster cluster = cluster(); TarnClient client = TarnClient.connect(cluster.config())) {
            BlockGroup g = replicatedFile(client, "/r/located");
            long fileId = client.getStatus("/r/located").fileId();
            assertThat(client.getBlock(fileId, 0).downMembers()).as("all up").isZero();
            int victim = 2;
            int index = indexOf(cluster, g.members().get(victim));
            cluster.crashDatanode(index);
            BlockRef down = Eventually.value(WAIT, "member " + victim + " marked down", () -> block(client, fileId),
                    r -> r.downMembers() != 0);
            assertThat(down.downMembers()).as("only the crashed member").isEqualTo(1 << victim);
            assertThat(down.memberDown(victim)).isTrue();
            cluster.restartDatanode(index);
            Eventually.value(WAIT, "member " + victim + " up again", () -> block(client, fileId),
                    r -> r.downMembers() == 0);
        }
    }

    private static BlockRef block(TarnClient client, long fileId) {
        try {
            return client.getBlock(fileId, 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aCrashedMemberMakesItsGroupUnderReplicatedUntilItIsBackOnItsStorage() throws Exception {
        try (MiniCluster cluster = cluster(); TarnClient client = TarnClient.connect(cluster.config())) {
            BlockGroup g = replicatedFile(client, "/r/f");
            assertThat(client.clusterStatus().blockGroups()).isEqualTo(1);
            assertThat(replication(client)).isEqualTo(ReplicationHealth.HEALTHY);

            GroupMember victim = g.members().get(1);
            int index = indexOf(cluster, victim);
            cluster.crashDatanode(index);
            ReplicationHealth down = Eventually.value(WAIT, "the namenode lists group " + g.groupId()
                    + " as under-replicated", () -> replication(client), r -> r.underReplicated() == 1);
            assertThat(down.degraded()).hasSize(1);
            DegradedGroup reported = down.degraded().get(0);
            assertThat(reported.groupId()).isEqualTo(g.groupId());
            assertThat(reported.members()).extracting(MemberHealth::datanodeId)
                    .containsExactlyElementsOf(g.members().stream().map(GroupMember::datanodeId).toList());
            assertThat(reported.down()).singleElement().satisfies(m -> {
                assertThat(m.memberId()).isEqualTo(victim.memberId());
                assertThat(m.datanodeId()).isEqualTo(victim.datanodeId());
                assertThat(m.port()).isEqualTo(victim.port());
                assertThat(m.stateName()).isEqualTo("silent");
                assertThat(m.lastHeardMs()).as("silent for at least the datanode timeout").isGreaterThan(500);
            });

            cluster.restartDatanode(index);
            Eventually.within(WAIT, "group " + g.groupId() + " is fully replicated again",
                    () -> replication(client).underReplicated() == 0);
            assertThat(replication(client).degraded()).isEmpty();
            assertThat(client.clusterStatus().datanodes()).extracting(DatanodeStatus::stateName)
                    .containsOnly("alive");
        }
    }

    @Test
    void aMemberStoppedWithoutKeepingItsMemoryHasLostItsCopy() throws Exception {
        try (MiniCluster cluster = cluster(); TarnClient client = TarnClient.connect(cluster.config())) {
            BlockGroup g = replicatedFile(client, "/r/g");
            GroupMember victim = g.members().get(0);
            int index = indexOf(cluster, victim);
            cluster.stopDatanode(index); // a clean stop deregisters and, without tarn.datanode.dram.keep, frees memory
            ReplicationHealth down = Eventually.value(WAIT, "group " + g.groupId() + " lists a lost member",
                    () -> replication(client), r -> r.underReplicated() == 1);
            assertThat(down.degraded().get(0).down()).singleElement().satisfies(m -> {
                assertThat(m.datanodeId()).isEqualTo(victim.datanodeId());
                assertThat(m.stateName()).isEqualTo("lost");
            });
            cluster.restartDatanode(index);
            assertThat(replication(client).degraded()).as("back, but without the group's region").singleElement()
                    .satisfies(d -> assertThat(d.down()).extracting(MemberHealth::stateName).containsExactly("lost"));
        }
    }
}
