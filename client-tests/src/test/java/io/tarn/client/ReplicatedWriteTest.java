package io.tarn.client;

import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Files of replication 3 written and read through the client on a real cluster: the writes go to
 * each block's group leader and are replicated before they are acknowledged, the data reads back,
 * and a writer carries on without an error when the leader's datanode dies under it.
 */
class ReplicatedWriteTest {
    private static final long BLOCK = 64 << 10;
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static MiniCluster cluster(int datanodes) throws IOException {
        return MiniCluster.builder().datanodes(datanodes).set(TarnKeys.BLOCK_SIZE, BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L).start();
    }

    /** Three datanodes, and calls that give up after 3 s: for writes to groups that cannot answer. */
    private static MiniCluster shortTimeoutCluster() throws IOException {
        return MiniCluster.builder().datanodes(3).set(TarnKeys.BLOCK_SIZE, BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L).set(TarnKeys.RPC_TIMEOUT, 3000L).start();
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] readAll(TarnClient client, String path) throws IOException {
        try (TarnInputStream in = client.open(path)) {
            return in.readAllBytes();
        }
    }

    static int indexOf(MiniCluster cluster, GroupMember m) {
        for (int i = 0; i < cluster.datanodeCount(); i++) {
            if (cluster.datanode(i).address().getPort() == m.port()) {
                return i;
            }
        }
        throw new AssertionError("no datanode serves port " + m.port());
    }

    @Test
    void aFileOfReplicationThreeIsWrittenThroughItsGroupsAndReadBack() throws Exception {
        try (MiniCluster cluster = cluster(3); TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] data = bytes((int) (3 * BLOCK + 1234), 1);
            try (TarnOutputStream out = client.create("/r/f", CreateOptions.DEFAULT.withReplication(3))) {
                out.write(data);
            }
            assertThat(client.getStatus("/r/f").size()).isEqualTo(data.length);
            assertThat(readAll(client, "/r/f")).isEqualTo(data);
            BlockRef first = client.getBlock(client.getStatus("/r/f").fileId(), 0);
            assertThat(first.group()).as("the blocks of the file are replicated").isNotNull();
            assertThat(first.group().members()).hasSize(3);
        }
    }

    /**
     * A new group reaches its members with the answers to their heartbeats. With heartbeats a
     * minute apart, the first write (and the first member's request for votes) would find the
     * members without the group for the whole client timeout; a request for a group a datanode
     * does not host makes it ask its namenode at once, so the write goes through.
     */
    @Test
    void aNewGroupDoesNotWaitForTheMembersNextHeartbeat() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(3).set(TarnKeys.BLOCK_SIZE, BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 60_000L).set(TarnKeys.DATANODE_TIMEOUT, 600_000L)
                .set(TarnKeys.RPC_TIMEOUT, 10_000L).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] data = bytes((int) (2 * BLOCK), 9);
            try (TarnOutputStream out = client.create("/new-group", CreateOptions.DEFAULT.withReplication(3))) {
                out.write(data);
                out.hflush();
            }
            assertThat(readAll(client, "/new-group")).isEqualTo(data);
        }
    }

    @Test
    void aReplicatedFileIsReadShortCircuitFromAReplicaOnThisHostAndFromTheLeaderOverTcp() throws Exception {
        try (MiniCluster cluster = cluster(3);
             TarnClient client = TarnClient.connect(cluster.config().toBuilder()
                     .set(TarnKeys.CLIENT_SHORTCIRCUIT, ShortCircuitMode.AUTO).build());
             TarnClient tcp = TarnClient.connect(cluster.config().toBuilder()
                     .set(TarnKeys.CLIENT_SHORTCIRCUIT, ShortCircuitMode.OFF).build())) {
            byte[] data = bytes((int) (2 * BLOCK + 77), 5);
            try (TarnOutputStream out = client.create("/r/sc", CreateOptions.DEFAULT.withReplication(3))) {
                out.write(data);
            }
            long before = client.shortCircuitBytes();
            assertThat(readAll(client, "/r/sc")).isEqualTo(data);
            assertThat(client.shortCircuitBytes() - before)
                    .as("a replica on this host is read short-circuit once its member caught up")
                    .isGreaterThanOrEqualTo(data.length);
            assertThat(readAll(tcp, "/r/sc")).isEqualTo(data);
            assertThat(tcp.shortCircuitBytes()).isZero();
            // Rewritten in place while open: a short-circuit reader sees the acknowledged bytes.
            byte[] again = bytes((int) BLOCK, 6);
            try (TarnOutputStream out = client.create("/r/sc2", CreateOptions.DEFAULT.withReplication(3))) {
                out.write(again);
                out.hsync();
                try (TarnInputStream in = client.open("/r/sc2")) {
                    assertThat(in.readAllBytes()).isEqualTo(again);
                }
            }
        }
    }

    @Test
    void aWriterCarriesOnWhenTheLeadersDatanodeDies() throws Exception {
        try (MiniCluster cluster = cluster(4); TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] data = bytes((int) (4 * BLOCK), 2);
            int half = (int) BLOCK / 2;
            TarnOutputStream out = client.create("/r/g", CreateOptions.DEFAULT.withReplication(3));
            out.write(data, 0, half);
            out.hsync();
            long fileId = client.getStatus("/r/g").fileId();
            BlockGroup group = client.getBlock(fileId, 0).group();
            int leader = Eventually.value(WAIT, "a member of group " + group.groupId() + " leads", () -> {
                for (GroupMember m : group.members()) {
                    if (cluster.datanode(indexOf(cluster, m)).groups().leads(group.groupId())) {
                        return indexOf(cluster, m);
                    }
                }
                return null;
            }, v -> v != null);
            cluster.crashDatanode(leader);
            out.write(data, half, data.length - half);
            out.close();
            assertThat(readAll(client, "/r/g")).as("every byte, written before and after the leader died")
                    .isEqualTo(data);
        }
    }

    @Test
    void aWriteToAGroupThatLostItsQuorumFailsNamingIt() throws Exception {
        try (MiniCluster cluster = shortTimeoutCluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            TarnOutputStream out = client.create("/r/q", CreateOptions.DEFAULT.withReplication(3));
            out.write(bytes(100, 3));
            out.hsync();
            BlockGroup group = client.getBlock(client.getStatus("/r/q").fileId(), 0).group();
            int survivor = -1;
            for (GroupMember m : group.members()) {
                int i = indexOf(cluster, m);
                if (survivor < 0) {
                    survivor = i;
                } else {
                    cluster.crashDatanode(i);
                }
            }
            long start = System.nanoTime();
            Throwable t = catchThrowable(() -> {
                out.write(bytes(100, 4));
                out.hsync();
            });
            long waitedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(t).isInstanceOf(TarnException.class).hasMessageContaining("group " + group.groupId());
            assertThat(waitedMs).as("failed within about tarn.rpc.timeout, no hang").isLessThan(15_000);
        }
    }

    /**
     * Every member of a group unreachable: the write fails with the group's error (no member
     * answered), not with an attempt to move the block elsewhere as for a block of replication 1,
     * which the namenode refuses for a replicated block and whose refusal hid the cause.
     */
    @Test
    void aWriteToAGroupWhoseMembersAreAllGoneFailsWithTheGroupsError() throws Exception {
        try (MiniCluster cluster = shortTimeoutCluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            TarnOutputStream out = client.create("/r/all", CreateOptions.DEFAULT.withReplication(3));
            out.write(bytes((int) BLOCK, 5));
            out.hsync();
            BlockGroup group = client.getBlock(client.getStatus("/r/all").fileId(), 0).group();
            for (GroupMember m : group.members()) {
                cluster.crashDatanode(indexOf(cluster, m));
            }
            Throwable t = catchThrowable(() -> {
                out.write(bytes(100, 6)); // the start of block 1, nothing of it stored yet
                out.hsync();
            });
            assertThat(t).isInstanceOf(TarnException.class).hasMessageContaining("/r/all")
                    .hasMessageContaining("group ").hasMessageContaining("cannot be reached")
                    .hasMessageNotContaining("REPLACE_BLOCK");
            assertThat(((TarnException) t).code()).as(t.getMessage()).isEqualTo(ErrorCode.GROUP_UNAVAILABLE);
        }
    }
}
