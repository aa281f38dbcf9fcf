package io.tarn.client;

import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.datanode.dram.DramDatanode;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Block groups end to end on a real cluster: a block of a file of replication 3 gets a group of
 * three datanodes from the namenode, those datanodes learn it from their heartbeats and host it
 * (journals on disk, one member leading, the leader reported back to the namenode), and freeing the
 * block destroys the group everywhere. Writing through the group is not part of this build.
 */
class BlockGroupHostingTest {
    private static final long BLOCK = 64 << 10;
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static DramDatanode datanodeOf(MiniCluster cluster, GroupMember m) {
        for (int i = 0; i < cluster.datanodeCount(); i++) {
            DramDatanode dn = cluster.datanode(i);
            if (dn.address().getPort() == m.port()) {
                return dn;
            }
        }
        throw new AssertionError("no datanode serves port " + m.port());
    }

    /** A cluster of {@code datanodes} DRAM datanodes that heartbeat every 50 ms. */
    private static MiniCluster cluster(int datanodes) throws Exception {
        return MiniCluster.builder().datanodes(datanodes).set(TarnKeys.BLOCK_SIZE, BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L).start();
    }

    private static BlockRef allocate(TarnClient client, long fileId) throws Exception {
        List<BlockRef> refs = client.router().writeBlocks(new FileRef(fileId), 0, 1, -1).get(10, TimeUnit.SECONDS);
        assertThat(refs).hasSize(1);
        return refs.get(0);
    }

    @Test
    void aGroupIsHostedByItsThreeDatanodesLedByOneAndDestroyedWithItsBlock() throws Exception {
        try (MiniCluster cluster = cluster(4);
             TarnClient client = TarnClient.connect(cluster.config())) {
            TarnOutputStream out = client.create("/r/f", CreateOptions.DEFAULT.withReplication(3));
            long fileId = client.getStatus("/r/f").fileId();
            BlockRef ref = allocate(client, fileId);
            BlockGroup g = ref.group();
            assertThat(g).as("a block of replication 3 names its group").isNotNull();
            assertThat(g.members()).extracting(GroupMember::datanodeId).doesNotHaveDuplicates().hasSize(3);
            assertThat(g.members()).extracting(GroupMember::port).doesNotHaveDuplicates();
            assertThat(ref.port()).isEqualTo(g.member(g.leaderMemberId()).port());

            List<DramDatanode> members = new ArrayList<>();
            for (GroupMember m : g.members()) {
                members.add(datanodeOf(cluster, m));
            }
            awaitHosted(members, g);
            var status = client.clusterStatus();
            assertThat(status.blockGroups()).isEqualTo(1);
            assertThat(status.datanodes()).filteredOn(d -> d.groups() == 1).extracting(d -> d.port())
                    .containsExactlyInAnyOrderElementsOf(g.members().stream().map(GroupMember::port).toList());
            for (int i = 0; i < cluster.datanodeCount(); i++) {
                if (!members.contains(cluster.datanode(i))) {
                    assertThat(cluster.datanode(i).groups().hosted()).as("not a member").isEmpty();
                }
            }
            Path journals = Path.of(cluster.config().get(TarnKeys.REPLICATION_JOURNAL_DIR).isBlank()
                    ? cluster.dataDir().resolve("journal").toString()
                    : cluster.config().get(TarnKeys.REPLICATION_JOURNAL_DIR));
            for (DramDatanode dn : members) {
                Path dir = journals.resolve(dn.storageId().toString()).resolve("group-" + g.groupId());
                assertThat(dir.resolve("members")).as("members file of %s", dn).exists();
                try (var files = Files.list(dir)) {
                    assertThat(files.map(p -> p.getFileName().toString()))
                            .as("a journal segment").anyMatch(n -> n.startsWith("segment-"));
                }
            }

            int leader = Eventually.value(WAIT, "one member leads group " + g.groupId(), () -> {
                for (int i = 0; i < members.size(); i++) {
                    if (members.get(i).groups().leads(g.groupId())) {
                        return g.members().get(i).memberId();
                    }
                }
                return null;
            }, Objects::nonNull);
            Eventually.within(WAIT, "the namenode learns that member " + leader + " leads",
                    () -> leaderHint(client, fileId) == leader);

            // Leadership moves: the new leader's report reaches the namenode too.
            int next = (leader + 1) % 3;
            members.get(leader).groups().runner(g.groupId()).transferLeadership(next);
            Eventually.within(WAIT, "the namenode learns that member " + next + " leads after a transfer",
                    () -> leaderHint(client, fileId) == next);
            BlockRef moved = client.getBlock(fileId, 0);
            assertThat(moved.port()).as("the reference names the new leader's replica")
                    .isEqualTo(g.member(next).port());

            out.close(); // nothing written: the block is freed, and with it the group
            Eventually.within(WAIT, "no member hosts group " + g.groupId() + " any more",
                    () -> members.stream().noneMatch(dn -> dn.groups().hosted().contains(g.groupId())));
            assertThat(client.clusterStatus().blockGroups()).isZero();
            for (DramDatanode dn : members) {
                assertThat(journals.resolve(dn.storageId().toString()).resolve("group-" + g.groupId()))
                        .as("journal deleted").doesNotExist();
            }
        }
    }

    private static void awaitHosted(List<DramDatanode> members, BlockGroup g) {
        Eventually.within(WAIT, "all three members host group " + g.groupId(),
                () -> members.stream().allMatch(dn -> dn.groups().hosted().contains(g.groupId())));
    }

    private static int leaderHint(TarnClient client, long fileId) {
        try {
            return client.getBlock(fileId, 0).group().leaderMemberId();
        } catch (Exception e) {
            return -1;
        }
    }

    @Test
    void aMemberRestartedOnItsStorageHostsItsGroupAgainFromTheJournal() throws Exception {
        try (MiniCluster cluster = cluster(3);
             TarnClient client = TarnClient.connect(cluster.config())) {
            TarnOutputStream out = client.create("/r/f", CreateOptions.DEFAULT.withReplication(3));
            BlockGroup g = allocate(client, client.getStatus("/r/f").fileId()).group();
            awaitHosted(List.of(cluster.datanode(0), cluster.datanode(1), cluster.datanode(2)), g);
            int victim = 0;
            for (int i = 0; i < 3; i++) {
                if (!cluster.datanode(i).groups().leads(g.groupId())) {
                    victim = i; // a follower: the group keeps its leader meanwhile
                }
            }
            cluster.crashDatanode(victim);
            cluster.restartDatanode(victim);
            DramDatanode back = cluster.datanode(victim);
            assertThat(back.intact()).as("the same storage").isTrue();
            Eventually.within(WAIT, "the restarted member hosts group " + g.groupId() + " again",
                    () -> back.groups().hosted().contains(g.groupId()));
            out.close();
            Eventually.within(WAIT, "the restarted member drops the destroyed group",
                    () -> back.groups().hosted().isEmpty());
        }
    }
}
