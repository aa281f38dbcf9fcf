package io.tarn.namenode.blocks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.AdminProtocol.CreateGroup;
import io.tarn.common.protocol.AdminProtocol.DeleteGroup;
import io.tarn.common.protocol.AdminProtocol.GroupCommand;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.LeaderReport;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/** Placement, slots and lifetime of replicated block groups, and the heartbeat commands that host them. */
class BlockGroupsTest {
    private static final long WRITER = 7;
    private static final int SLOTS = 4;

    private final Fixture fx = new Fixture();
    private BlockTokens tokens;

    /** Datanodes 1..n on hosts {@code hosts[i]}, each with {@code regions} regions of {@link #SLOTS} blocks. */
    private void datanodes(int regions, String... hosts) throws Exception {
        for (int i = 0; i < hosts.length; i++) {
            RegisterResponse r = fx.datanode(i + 1, hosts[i], 9070 + i, 0, regions, SLOTS, false);
            tokens = BlockTokens.holding(r.keys().fingerprint(), r.keys().keys()); // as a datanode holds them
        }
    }

    private long file(String path) throws Exception {
        return fx.createReplicated(path, WRITER, 3).fileId();
    }

    private DatanodeInfo dn(int id) {
        return fx.nn.datanodes().get(id);
    }

    private List<GroupCommand> heartbeat(int datanode, List<Long> hosted, LeaderReport... leading) throws Exception {
        return fx.nn.heartbeat(new HeartbeatRequest(datanode, 0, datanode, hosted, List.of(leading))).commands();
    }

    @Test
    void aGroupTakesAWholeRegionOnThreeDatanodesOnDistinctHostsFirst() throws Exception {
        datanodes(2, "a", "a", "b", "c");
        BlockRef ref = fx.write(file("/f"), 0, WRITER);
        BlockGroup g = ref.group();
        assertThat(g.members()).extracting(GroupMember::memberId).containsExactly(0, 1, 2);
        assertThat(g.members()).extracting(GroupMember::host).as("one per host").containsExactlyInAnyOrder("a", "b",
                "c");
        assertThat(g.version()).isEqualTo(1);
        assertThat(BlockGroup.partitionOf(g.groupId())).isZero();
        GroupMember leader = g.member(g.leaderMemberId());
        assertThat(ref.datanodeId()).as("the reference names the leader hint's replica").isEqualTo(leader.datanodeId());
        assertThat(ref.regionId()).isEqualTo(leader.regionId());
        assertThat(ref.token()).isEqualTo(leader.token());
        for (GroupMember m : g.members()) {
            assertThat(tokens.check(m.token(), ref.tokenStamp(), m.datanodeId(), m.regionId(), ref.blockIndex(),
                    ref.generation(), BlockTokens.WRITE)).as("member %d's token opens its own replica", m.memberId())
                    .isEqualTo(BlockTokens.Verdict.VALID);
            assertThat(dn(m.datanodeId()).freeBlocks()).as("its region left the free list").isEqualTo(SLOTS);
        }
        GroupMember other = g.members().get(1);
        assertThat(tokens.check(leader.token(), ref.tokenStamp(), other.datanodeId(), other.regionId(),
                ref.blockIndex(), ref.generation(), BlockTokens.WRITE)).isEqualTo(BlockTokens.Verdict.INVALID);
    }

    @Test
    void withTooFewHostsTheMembersAreDistinctDatanodes() throws Exception {
        datanodes(1, "a", "a", "b");
        BlockGroup g = fx.write(file("/f"), 0, WRITER).group();
        assertThat(g.members()).extracting(GroupMember::datanodeId).containsExactlyInAnyOrder(1, 2, 3);
    }

    @Test
    void blocksFillAGroupsSlotsThenANewGroupIsMadeThenSpaceRunsOut() throws Exception {
        datanodes(2, "a", "b", "c");
        long f = file("/f");
        Set<Integer> slots = new HashSet<>();
        long first = fx.write(f, 0, WRITER).group().groupId();
        slots.add(fx.read(f, 0).blockIndex());
        for (int i = 1; i < SLOTS; i++) {
            BlockRef r = fx.write(f, i, WRITER);
            assertThat(r.group().groupId()).as("reused while it has a free slot").isEqualTo(first);
            slots.add(r.blockIndex());
        }
        assertThat(slots).containsExactlyInAnyOrder(0, 1, 2, 3);
        long g = file("/g");
        long second = fx.write(g, 0, WRITER).group().groupId();
        assertThat(second).isNotEqualTo(first);
        assertThat(fx.nn.allocator().groups().count()).isEqualTo(2);
        for (int i = 1; i < SLOTS; i++) {
            fx.write(g, i, WRITER);
        }
        long h = file("/h");
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> fx.write(h, 0, WRITER)))
                .isEqualTo("cannot place a block group of replication 3: it needs a wholly free region on 3 live "
                        + "datanodes, and 0 datanode(s) of 3 have one; delete files, add datanodes, or write files "
                        + "of replication 1");
        long plain = fx.create("/plain", WRITER).fileId();
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> fx.write(plain, 0, WRITER)))
                .as("a group's regions never hold unreplicated blocks").contains("no free block");
    }

    @Test
    void unreplicatedBlocksLeaveWholeRegionsForGroups() throws Exception {
        datanodes(2, "a", "b", "c");
        long plain = fx.create("/plain", WRITER).fileId();
        for (int i = 0; i < 3; i++) {
            fx.write(plain, i, WRITER); // one block on each datanode (round robin), all in region 0
        }
        BlockGroup g = fx.write(file("/f"), 0, WRITER).group();
        assertThat(g.members()).extracting(GroupMember::regionId).as("the wholly free region").containsOnly(1);
    }

    @Test
    void theLastFreedBlockDestroysTheGroupAndItsSlotsComeBackWithHigherGenerations() throws Exception {
        datanodes(1, "a", "b", "c");
        long f = file("/f");
        BlockRef a = fx.write(f, 0, WRITER);
        fx.write(f, 1, WRITER);
        long id = a.group().groupId();
        fx.nn.files().close(f, WRITER, Fixture.BLOCK);
        assertThat(fx.nn.allocator().groups().get(id)).as("one block still in it").isNotNull();
        fx.nn.namespace().delete("/f", false);
        assertThat(fx.nn.allocator().groups().count()).isZero();
        for (int d = 1; d <= 3; d++) {
            assertThat(heartbeat(d, List.of(id))).as("the members are told to drop it")
                    .containsExactly(new DeleteGroup(id));
            assertThat(dn(d).freeBlocks()).as("held while the datanode still hosts the group").isZero();
            assertThat(heartbeat(d, List.of())).isEmpty();
            assertThat(dn(d).freeBlocks()).as("region back on the free list once dropped").isEqualTo(SLOTS);
        }
        BlockRef again = fx.write(file("/g"), 0, WRITER);
        assertThat(again.group().groupId()).as("a new group").isNotEqualTo(id);
        assertThat(again.blockIndex()).isEqualTo(a.blockIndex());
        assertThat(again.generation()).as("above every generation the old group gave").isGreaterThan(a.generation());
        long plain = fx.create("/plain", WRITER).fileId();
        fx.nn.namespace().delete("/g", false);
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> fx.write(plain, 0, WRITER)))
                .as("the regions stay the group's until the datanodes dropped it").contains("no free block");
        for (int d = 1; d <= 3; d++) {
            heartbeat(d, List.of());
        }
        BlockRef reused = fx.write(plain, 0, WRITER);
        assertThat(reused.generation()).as("an unreplicated block there stays above the group's generations")
                .isGreaterThan(again.generation() - 1);
    }

    @Test
    void createGroupIsSentAtEveryHeartbeatUntilTheDatanodeListsIt() throws Exception {
        datanodes(1, "a", "b", "c");
        BlockGroup g = fx.write(file("/f"), 0, WRITER).group();
        for (GroupMember m : g.members()) {
            List<GroupCommand> first = heartbeat(m.datanodeId(), List.of());
            assertThat(first).singleElement().isInstanceOfSatisfying(CreateGroup.class, c -> {
                assertThat(c.self()).isEqualTo(m.memberId());
                assertThat(c.campaign()).as("the first member campaigns").isEqualTo(m.memberId() == 0);
                assertThat(c.group().groupId()).isEqualTo(g.groupId());
                assertThat(c.group().members()).extracting(GroupMember::token).containsOnly(0L);
            });
            assertThat(heartbeat(m.datanodeId(), List.of())).as("again").isEqualTo(first);
            assertThat(heartbeat(m.datanodeId(), List.of(g.groupId()))).as("listed: confirmed").isEmpty();
            assertThat(heartbeat(m.datanodeId(), List.of())).as("not sent again once confirmed").isEmpty();
        }
    }

    @Test
    void groupsOfOtherPartitionsAreLeftAloneAndUnknownOnesOfThisPartitionDeleted() throws Exception {
        datanodes(1, "a", "b", "c");
        long otherPartition = BlockGroup.id(1, 5, 1);
        long earlierRun = BlockGroup.id(0, 5, 1);
        assertThat(heartbeat(1, List.of(otherPartition, earlierRun))).containsExactly(new DeleteGroup(earlierRun));
    }

    @Test
    void leaderReportsFromMembersMoveTheLeaderHintByTerm() throws Exception {
        datanodes(1, "a", "b", "c");
        long f = file("/f");
        BlockGroup g = fx.write(f, 0, WRITER).group();
        GroupMember two = g.member(2);
        GroupMember one = g.member(1);
        heartbeat(two.datanodeId(), List.of(g.groupId()), new LeaderReport(g.groupId(), 2, 5));
        BlockRef r = fx.read(f, 0);
        assertThat(r.group().leaderMemberId()).isEqualTo(2);
        assertThat(r.datanodeId()).isEqualTo(two.datanodeId());
        assertThat(r.regionId()).isEqualTo(two.regionId());
        heartbeat(one.datanodeId(), List.of(g.groupId()), new LeaderReport(g.groupId(), 1, 4));
        assertThat(fx.read(f, 0).group().leaderMemberId()).as("an older term").isEqualTo(2);
        heartbeat(one.datanodeId(), List.of(g.groupId()), new LeaderReport(g.groupId(), 2, 9));
        assertThat(fx.read(f, 0).group().leaderMemberId()).as("a datanode speaks for its own member only")
                .isEqualTo(2);
        heartbeat(one.datanodeId(), List.of(g.groupId()), new LeaderReport(g.groupId(), 1, 6));
        assertThat(fx.read(f, 0).group().leaderMemberId()).isEqualTo(1);
    }

    @Test
    void aDeadLeaderIsSkippedInReferencesAndItsGroupTakesNoNewBlocks() throws Exception {
        datanodes(2, "a", "b", "c");
        long f = file("/f");
        BlockGroup g = fx.write(f, 0, WRITER).group();
        GroupMember leader = g.member(g.leaderMemberId());
        fx.clock.advance(Fixture.DATANODE_TIMEOUT + 1);
        for (GroupMember m : g.members()) {
            if (m != leader) {
                fx.nn.datanodes().heartbeat(m.datanodeId(), dn(m.datanodeId()).storageId());
            }
        }
        fx.nn.runMaintenance();
        BlockRef r = fx.read(f, 0);
        assertThat(r.datanodeId()).as("another member").isNotEqualTo(leader.datanodeId());
        assertThat(r.group().leaderMemberId()).isNotEqualTo(leader.memberId());
        assertThat(failsWith(ErrorCode.NOT_ENOUGH_DATANODES, () -> fx.write(f, 1, WRITER)))
                .contains("2 are alive");
        assertThat(failsWith(ErrorCode.INVALID_ARGUMENT,
                () -> fx.nn.files().replaceBlock(f, 0, r.datanodeId(), WRITER, "")))
                .contains("block of replication 3");
    }

    @Test
    void aGroupedReferenceSurvivesTheWire() throws Exception {
        datanodes(1, "a", "b", "c");
        BlockRef ref = fx.write(file("/f"), 0, WRITER);
        ByteBuf buf = Unpooled.buffer();
        NamenodeProtocol.writeBlockRef(buf, ref);
        assertThat(NamenodeProtocol.decodeBlockRef(buf)).isEqualTo(ref);
        buf.release();
    }
}
