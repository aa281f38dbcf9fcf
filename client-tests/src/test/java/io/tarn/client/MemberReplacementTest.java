package io.tarn.client;

import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.replication.host.GroupMembers;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A member of a block group whose datanode died is replaced on a real cluster: after
 * {@code tarn.datanode.replace.after} the namenode places a new member on the spare datanode, the
 * leader removes the dead member and adds the new one (the core's single-member changes), the new
 * member catches up from the others (a streamed checkpoint and the log), and the namenode hands out
 * the new members: every replica of the file's blocks is byte-identical again and writes go on.
 */
class MemberReplacementTest {
    private static final long BLOCK = 64 << 10;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aDeadMemberIsReplacedAndTheNewOneHoldsTheGroupsData() throws Exception {
        try (MiniCluster cluster = cluster(); TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] data = write(client, 2, 11);
            long fileId = client.getStatus("/r/f").fileId();
            BlockGroup before = client.getBlock(fileId, 0).group();
            GroupMember dead = before.members().get(1);
            BlockGroup after = crashAndAwaitReplacement(cluster, client, fileId, dead);
            assertThat(after.member(dead.memberId())).as("the dead member is gone").isNull();
            assertThat(after.members()).hasSize(3);
            GroupMember joined = after.members().stream().filter(m -> m.memberId() >= BlockGroup.FOUNDERS)
                    .findFirst().orElseThrow();
            assertThat(joined.memberId()).isEqualTo(3);
            assertThat(joined.datanodeId()).isNotIn(before.members().stream().map(GroupMember::datanodeId).toList());

            // Every member, the new one included, holds the file's bytes.
            for (int b = 0; b < 2; b++) {
                BlockRef ref = client.getBlock(fileId, b);
                byte[] expected = Arrays.copyOfRange(data, (int) (b * BLOCK), (int) ((b + 1) * BLOCK));
                for (GroupMember m : ref.group().members()) {
                    Eventually.value(WAIT, "member " + m.memberId() + " holds block " + b,
                            trying(() -> client.readReplica(ref, m.memberId(), (int) BLOCK)),
                            bytes -> Arrays.equals(bytes, expected));
                }
                assertThat(block(client, "/r/f", b)).isEqualTo(expected);
            }

            // The repaired group takes writes again, replicated to its new member.
            byte[] more = new byte[(int) BLOCK];
            new Random(12).nextBytes(more);
            try (TarnOutputStream out = client.create("/r/g", CreateOptions.DEFAULT.withReplication(3))) {
                out.write(more);
            }
            BlockRef g0 = client.getBlock(client.getStatus("/r/g").fileId(), 0);
            for (GroupMember m : g0.group().members()) {
                Eventually.value(WAIT, "member " + m.memberId() + " holds the new block",
                        trying(() -> client.readReplica(g0, m.memberId(), (int) BLOCK)),
                        bytes -> Arrays.equals(bytes, more));
            }
        }
    }

    /**
     * The group the namenode sends during a replacement lists the new members only, but the member
     * being removed stays in the replicas' configuration (and may lead) until the change commits. A
     * member that restarted then used to host the group knowing only the new members' addresses:
     * its answers to the leaving member, leading, were dropped, so it never caught up and the change
     * never completed. Now the members file keeps the leaver's address across a restart.
     */
    @Test
    void aMemberRestartedAfterAReplacementStillKnowsWhereTheMemberThatLeftServes() throws Exception {
        try (MiniCluster cluster = cluster(); TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] data = write(client, 1, 13);
            long fileId = client.getStatus("/r/f").fileId();
            BlockGroup before = client.getBlock(fileId, 0).group();
            GroupMember dead = before.members().get(1);
            crashAndAwaitReplacement(cluster, client, fileId, dead);

            GroupMember stayed = before.members().get(0);
            int index = ReplicatedWriteTest.indexOf(cluster, stayed);
            cluster.crashDatanode(index);
            cluster.restartDatanode(index);
            GroupMembers known = Eventually.value(WAIT, "member " + stayed.memberId() + " hosts the group again",
                    () -> cluster.datanode(index).groups().members(before.groupId()), m -> m != null);
            assertThat(known.address(dead.memberId())).as("the address of the member that left")
                    .isEqualTo(new InetSocketAddress(dead.host(), dead.port()));

            // The restarted member holds the group's data and the group goes on.
            BlockRef ref = client.getBlock(fileId, 0);
            Eventually.value(WAIT, "the restarted member holds the block",
                    trying(() -> client.readReplica(ref, stayed.memberId(), (int) BLOCK)),
                    bytes -> Arrays.equals(bytes, data));
            assertThat(block(client, "/r/f", 0)).isEqualTo(data);
        }
    }

    /** Four datanodes; a datanode silent for 1 s is dead, and its members are replaced 500 ms later. */
    private static MiniCluster cluster() throws IOException {
        return MiniCluster.builder().datanodes(4).set(TarnKeys.BLOCK_SIZE, BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L).set(TarnKeys.DATANODE_TIMEOUT, 1_000L)
                .set(TarnKeys.DATANODE_REPLACE_AFTER, 500L).start();
    }

    /** Writes {@code blocks} blocks of random bytes to /r/f with replication 3 and returns them. */
    private static byte[] write(TarnClient client, int blocks, long seed) throws IOException {
        byte[] data = new byte[(int) (blocks * BLOCK)];
        new Random(seed).nextBytes(data);
        try (TarnOutputStream out = client.create("/r/f", CreateOptions.DEFAULT.withReplication(3))) {
            out.write(data);
        }
        return data;
    }

    /** Crashes {@code dead}'s datanode and returns the group of the file's first block once replaced. */
    private static BlockGroup crashAndAwaitReplacement(MiniCluster cluster, TarnClient client, long fileId,
                                                       GroupMember dead) {
        cluster.crashDatanode(ReplicatedWriteTest.indexOf(cluster, dead));
        return Eventually.value(WAIT, "the group replaces member " + dead.memberId(),
                trying(() -> client.getBlock(fileId, 0).group()), g -> g != null && g.version() > 1);
    }

    /** {@code call}'s value, or null while it fails (the cluster is still changing). */
    private static <T> Supplier<T> trying(Callable<T> call) {
        return () -> {
            try {
                return call.call();
            } catch (Exception e) {
                return null;
            }
        };
    }

    private static byte[] block(TarnClient client, String path, int index) throws Exception {
        try (TarnInputStream in = client.open(path)) {
            in.seek(index * BLOCK);
            return in.readNBytes((int) BLOCK);
        }
    }
}
