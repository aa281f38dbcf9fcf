package io.tarn.namenode.blocks;

import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.AdminProtocol.ChangeGroup;
import io.tarn.common.protocol.AdminProtocol.CreateGroup;
import io.tarn.common.protocol.AdminProtocol.DeleteGroup;
import io.tarn.common.protocol.AdminProtocol.FailedGroup;
import io.tarn.common.protocol.AdminProtocol.GroupCommand;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.LeaderReport;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.AdminProtocol.Replacement;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replacing a member of a block group on the namenode: when a member's datanode stays dead for
 * {@code tarn.datanode.replace.after} (or comes back without its data), a new member is placed on
 * another datanode, the members' datanodes are told the target membership and the new one to join,
 * and the change takes effect when the leader reports its replicas applied it.
 */
class GroupRepairTest {
    private static final long WRITER = 7;
    private static final int SLOTS = 4;
    private static final long REPLACE_AFTER = 30_000;

    private final Fixture fx = new Fixture();
    private BlockTokens tokens;

    private void datanodes(String... hosts) throws Exception {
        for (int i = 0; i < hosts.length; i++) {
            RegisterResponse r = fx.datanode(i + 1, hosts[i], 9070 + i, 0, 2, SLOTS, false);
            tokens = BlockTokens.holding(r.keys().fingerprint(), r.keys().keys()); // as a datanode holds them
        }
        fx.nn.allocator().groups().replaceAfter(REPLACE_AFTER);
    }

    private DatanodeInfo dn(int id) {
        return fx.nn.datanodes().get(id);
    }

    private List<GroupCommand> heartbeat(int datanode, List<Long> hosted, LeaderReport... leading) throws Exception {
        return fx.nn.heartbeat(new HeartbeatRequest(datanode, 0, datanode, hosted, List.of(leading))).commands();
    }

    /** Lets {@code ms} pass, a second at a time, with every datanode but {@code silent} heartbeating. */
    private void pass(long ms, Integer... silent) throws Exception {
        List<Integer> quiet = List.of(silent);
        for (long t = 0; t < ms; t += 1_000) {
            fx.clock.advance(1_000);
            for (int id = 1; id <= fx.nn.datanodes().size(); id++) {
                if (!quiet.contains(id)) {
                    fx.nn.datanodes().heartbeat(id, dn(id).storageId());
                }
            }
            fx.nn.runMaintenance();
        }
    }

    private GroupInfo group(long id) {
        return fx.nn.allocator().groups().get(id);
    }

    @Test
    void aMemberDeadForReplaceAfterIsReplacedOnAnotherDatanodeOnceTheLeaderAppliedTheChange() throws Exception {
        datanodes("a", "b", "c", "d");
        long f = fx.createReplicated("/f", WRITER, 3).fileId();
        BlockGroup before = fx.write(f, 0, WRITER).group();
        GroupMember gone = before.members().get(1);
        int spare = 10 - before.members().stream().mapToInt(GroupMember::datanodeId).sum();
        long freeOnGone = dn(gone.datanodeId()).freeBlocks();

        pass(Fixture.DATANODE_TIMEOUT + REPLACE_AFTER / 2, gone.datanodeId());
        assertThat(dn(gone.datanodeId()).alive()).isFalse();
        assertThat(group(before.groupId()).change()).as("not yet: dead for less than replace.after").isNull();

        pass(REPLACE_AFTER, gone.datanodeId());
        GroupInfo.Change change = group(before.groupId()).change();
        assertThat(change).isNotNull();
        assertThat(change.removed().memberId()).isEqualTo(gone.memberId());
        assertThat(change.added().memberId()).as("a new id, never reused").isEqualTo(3);
        assertThat(change.added().datanode().id()).isEqualTo(spare);
        assertThat(change.target().version()).isEqualTo(2);
        List<Integer> expected = new ArrayList<>(before.members().stream().map(GroupMember::memberId)
                .filter(m -> m != gone.memberId()).toList());
        expected.add(3);
        assertThat(change.target().ids()).isEqualTo(expected);
        fx.clock.advance(2_500);
        assertThat(fx.nn.clusterStatus().replication().degraded()).singleElement().satisfies(d -> {
            assertThat(d.groupId()).isEqualTo(before.groupId());
            assertThat(d.replacement()).as("repair progress, for tarn status").isEqualTo(new Replacement(
                    gone.memberId(), 3, spare, dn(spare).host(), dn(spare).port(),
                    fx.clock.millis() - change.startedMs()));
        });

        // The new member's datanode is told to join; the others learn the target.
        List<GroupCommand> toSpare = heartbeat(spare, List.of());
        assertThat(toSpare).singleElement().isInstanceOfSatisfying(CreateGroup.class, c -> {
            assertThat(c.self()).isEqualTo(3);
            assertThat(c.campaign()).isFalse();
            assertThat(c.group().version()).isEqualTo(2);
            assertThat(c.group().member(3).datanodeId()).isEqualTo(spare);
            assertThat(c.group().member(gone.memberId())).isNull();
        });
        GroupMember survivor = before.members().get(0);
        assertThat(heartbeat(survivor.datanodeId(), List.of(before.groupId()))).singleElement()
                .isInstanceOfSatisfying(ChangeGroup.class, c -> assertThat(c.target().member(3)).isNotNull());
        assertThat(heartbeat(spare, List.of(before.groupId()))).as("the joiner is not told to delete it")
                .noneMatch(c -> c instanceof DeleteGroup);
        assertThat(fx.read(f, 0).group().version()).as("clients see the old members until the change is done")
                .isEqualTo(1);
        assertThat(fx.nn.allocator().groups().all()).allMatch(g -> g.id() != before.groupId() || !g.allocatable());

        // A report of the old configuration changes nothing; the target's completes the change.
        List<Integer> old = before.members().stream().map(GroupMember::memberId).toList();
        heartbeat(survivor.datanodeId(), List.of(before.groupId()),
                new LeaderReport(before.groupId(), survivor.memberId(), 3, old));
        assertThat(group(before.groupId()).change()).isNotNull();
        heartbeat(survivor.datanodeId(), List.of(before.groupId()),
                new LeaderReport(before.groupId(), survivor.memberId(), 3, change.target().ids()));
        assertThat(group(before.groupId()).change()).isNull();
        assertThat(group(before.groupId()).version()).isEqualTo(2);

        BlockRef after = fx.read(f, 0);
        assertThat(after.group().version()).isEqualTo(2);
        GroupMember joined = after.group().member(3);
        assertThat(joined.datanodeId()).isEqualTo(spare);
        assertThat(tokens.check(joined.token(), after.tokenStamp(), spare, joined.regionId(), after.blockIndex(),
                after.generation(), BlockTokens.READ)).as("the new member's token opens its replica")
                .isEqualTo(BlockTokens.Verdict.VALID);
        assertThat(heartbeat(survivor.datanodeId(), List.of(before.groupId()))).isEmpty();

        // The replaced datanode comes back with the group: it is told to delete it, and its region is
        // free once it no longer lists the group.
        fx.nn.datanodes().heartbeat(gone.datanodeId(), dn(gone.datanodeId()).storageId());
        assertThat(heartbeat(gone.datanodeId(), List.of(before.groupId()))).singleElement()
                .isEqualTo(new DeleteGroup(before.groupId()));
        assertThat(dn(gone.datanodeId()).freeBlocks()).isEqualTo(freeOnGone);
        assertThat(heartbeat(gone.datanodeId(), List.of())).isEmpty();
        assertThat(dn(gone.datanodeId()).freeBlocks()).as("the old member's region is free again")
                .isEqualTo(freeOnGone + SLOTS);
    }

    /**
     * A member whose datanode stays alive but reports the group stopped there (its journal failed)
     * counts as down at once (left out of block locations, no new blocks in the group) and is
     * replaced on another datanode once it has been failed for {@code tarn.datanode.replace.after}.
     */
    @Test
    void aMemberWhoseGroupStoppedOnItsLiveDatanodeIsReplacedAfterReplaceAfter() throws Exception {
        datanodes("a", "b", "c", "d");
        long f = fx.createReplicated("/f", WRITER, 3).fileId();
        BlockGroup g = fx.write(f, 0, WRITER).group();
        int at = 1;
        GroupMember failed = g.members().get(at);
        int spare = 10 - g.members().stream().mapToInt(GroupMember::datanodeId).sum();
        fx.nn.heartbeat(new HeartbeatRequest(failed.datanodeId(), 0, failed.datanodeId(), List.of(g.groupId()),
                List.of(), List.of(new FailedGroup(g.groupId(), "journal /j is full: No space left on device"))));
        assertThat(group(g.groupId()).failure(failed.memberId())).contains("No space left on device");
        assertThat(group(g.groupId()).liveMembers()).isEqualTo(2);
        assertThat(fx.read(f, 0).memberDown(at)).as("left out of locations at once").isTrue();
        assertThat(group(g.groupId()).allocatable()).as("no new blocks in a group running on two").isFalse();

        pass(REPLACE_AFTER / 2);
        assertThat(group(g.groupId()).change()).as("not yet: failed for less than replace.after").isNull();
        pass(REPLACE_AFTER);
        GroupInfo.Change change = group(g.groupId()).change();
        assertThat(change).isNotNull();
        assertThat(change.removed().memberId()).isEqualTo(failed.memberId());
        assertThat(change.added().datanode().id()).as("not on the datanode where it failed").isEqualTo(spare);
        pass(5_000);
        assertThat(group(g.groupId()).change()).as("not given up: the datanode is alive, the group is not")
                .isSameAs(change);
    }

    @Test
    void aMemberBackWithoutItsDataIsReplacedAtOnceAndAGroupWithoutAMajorityWaits() throws Exception {
        datanodes("a", "b", "c", "d");
        long f = fx.createReplicated("/f", WRITER, 3).fileId();
        BlockGroup g = fx.write(f, 0, WRITER).group();
        GroupMember wiped = g.members().get(2);
        // Re-registers with the same storage id but without its data: a new incarnation.
        fx.datanode(wiped.datanodeId(), dn(wiped.datanodeId()).host(), dn(wiped.datanodeId()).port(), 0, 2, SLOTS,
                false);
        fx.nn.runMaintenance();
        assertThat(group(g.groupId()).change()).isNotNull();
        assertThat(group(g.groupId()).change().removed().memberId()).isEqualTo(wiped.memberId());

        long f2 = fx.createReplicated("/f2", WRITER, 3).fileId();
        BlockGroup g2 = fx.write(f2, 0, WRITER).group();
        GroupMember a = g2.members().get(0);
        GroupMember b = g2.members().get(1);
        pass(Fixture.DATANODE_TIMEOUT + REPLACE_AFTER + 5_000, a.datanodeId(), b.datanodeId());
        assertThat(group(g2.groupId()).change()).as("one live member cannot carry out a change").isNull();
    }

    @Test
    void aReplacementIsGivenUpWhenTheMemberComesBackWithItsDataFirst() throws Exception {
        datanodes("a", "b", "c", "d");
        long f = fx.createReplicated("/f", WRITER, 3).fileId();
        BlockGroup g = fx.write(f, 0, WRITER).group();
        GroupMember gone = g.members().get(0);
        pass(Fixture.DATANODE_TIMEOUT + REPLACE_AFTER + 1_000, gone.datanodeId());
        GroupInfo.Change change = group(g.groupId()).change();
        assertThat(change).isNotNull();
        long freeOnSpare = change.added().datanode().freeBlocks();
        pass(1_000);
        assertThat(group(g.groupId()).change()).isNull();
        assertThat(group(g.groupId()).version()).isEqualTo(1);
        assertThat(heartbeat(change.added().datanode().id(), List.of())).isEmpty();
        assertThat(change.added().datanode().freeBlocks()).as("the joiner's region is free again")
                .isEqualTo(freeOnSpare + SLOTS);
    }

    /** A group on three of four datanodes whose first member stayed dead: the replacement has begun. */
    private record Replacing(BlockGroup g, GroupMember gone, GroupMember leader, GroupInfo.Change change) {
    }

    private Replacing replacingFirstMember() throws Exception {
        datanodes("a", "b", "c", "d");
        long f = fx.createReplicated("/f", WRITER, 3).fileId();
        BlockGroup g = fx.write(f, 0, WRITER).group();
        GroupMember gone = g.members().get(0);
        pass(Fixture.DATANODE_TIMEOUT + REPLACE_AFTER + 1_000, gone.datanodeId());
        GroupInfo.Change change = group(g.groupId()).change();
        assertThat(change).isNotNull();
        return new Replacing(g, gone, g.members().get(1), change);
    }

    @Test
    void aReplacementTheReplicasBeganIsCarriedThroughEvenIfTheMemberComesBack() throws Exception {
        Replacing r = replacingFirstMember();
        BlockGroup g = r.g();
        GroupMember gone = r.gone();
        GroupMember leader = r.leader();
        GroupInfo.Change change = r.change();
        List<Integer> removed = g.members().stream().map(GroupMember::memberId)
                .filter(m -> m != gone.memberId()).toList();
        heartbeat(leader.datanodeId(), List.of(g.groupId()),
                new LeaderReport(g.groupId(), leader.memberId(), 4, removed));
        pass(1_000);
        assertThat(group(g.groupId()).change()).as("the group left the old configuration: no way back")
                .isSameAs(change);
        heartbeat(leader.datanodeId(), List.of(g.groupId()),
                new LeaderReport(g.groupId(), leader.memberId(), 4, change.target().ids()));
        assertThat(group(g.groupId()).version()).isEqualTo(2);
    }

    @Test
    void aReplacementSentToTheGroupIsCarriedThroughEvenIfTheMemberComesBackBeforeAnyReport() throws Exception {
        Replacing r = replacingFirstMember();
        BlockGroup g = r.g();
        GroupMember gone = r.gone();
        GroupMember leader = r.leader();
        GroupInfo.Change change = r.change();
        // The leader's datanode gets the change; its leader may remove the member at once, long
        // before its next report (a chaos run saw the namenode give up 3 ms after the removal, and
        // the group was left with two members the namenode did not know of).
        assertThat(heartbeat(leader.datanodeId(), List.of(g.groupId()))).singleElement()
                .isInstanceOf(ChangeGroup.class);
        pass(1_000);
        assertThat(group(g.groupId()).change()).as("handed to the group: carried through").isSameAs(change);
        heartbeat(leader.datanodeId(), List.of(g.groupId()),
                new LeaderReport(g.groupId(), leader.memberId(), 4, change.target().ids()));
        assertThat(group(g.groupId()).version()).isEqualTo(2);
        assertThat(group(g.groupId()).members().stream().map(GroupInfo.Member::memberId).sorted().toList())
                .isEqualTo(change.target().ids());
    }

    @Test
    void aNewMemberThatDiesBeforeItJoinedIsReplacedInTurn() throws Exception {
        datanodes("a", "b", "c", "d", "e");
        long f = fx.createReplicated("/f", WRITER, 3).fileId();
        BlockGroup g = fx.write(f, 0, WRITER).group();
        fx.nn.files().close(f, WRITER, 100); // closed with data: no lease to expire during the long wait
        GroupMember gone = g.members().get(2);
        pass(Fixture.DATANODE_TIMEOUT + REPLACE_AFTER + 1_000, gone.datanodeId());
        GroupInfo.Change first = group(g.groupId()).change();
        int joiner = first.added().datanode().id();
        long freeOnJoiner = first.added().datanode().freeBlocks();
        pass(Fixture.DATANODE_TIMEOUT + REPLACE_AFTER + 1_000, gone.datanodeId(), joiner);
        GroupInfo.Change second = group(g.groupId()).change();
        assertThat(second.removed().memberId()).isEqualTo(gone.memberId());
        assertThat(second.added().memberId()).as("ids are never reused").isEqualTo(4);
        assertThat(second.added().datanode().id()).isNotIn(joiner, gone.datanodeId());
        assertThat(second.target().ids()).doesNotContain(3, gone.memberId()).contains(4);
        fx.nn.datanodes().heartbeat(joiner, dn(joiner).storageId());
        heartbeat(joiner, List.of());
        assertThat(dn(joiner).freeBlocks()).as("the dead joiner's region is free again once it reports")
                .isEqualTo(freeOnJoiner + SLOTS);
        assertThat(heartbeat(second.added().datanode().id(), List.of())).singleElement()
                .isInstanceOfSatisfying(CreateGroup.class, c -> assertThat(c.self()).isEqualTo(4));
    }

    /**
     * A datanode that still holds the copy of a member the group replaced (it was down when the
     * replacement finished) does not take a new member of that group until it has deleted the copy:
     * a heartbeat names the groups a datanode hosts, not as which member, so the old copy would
     * pass for the new member, and the change would wait for ever for a member nobody hosts.
     */
    @Test
    void aDatanodeStillHoldingARemovedMembersCopyTakesNoNewMemberOfTheGroupUntilItDeletedIt() throws Exception {
        datanodes("a", "b", "c", "d");
        long f = fx.createReplicated("/f", WRITER, 3).fileId();
        BlockGroup before = fx.write(f, 0, WRITER).group();
        fx.nn.files().close(f, WRITER, Fixture.BLOCK); // closed: no lease to expire over the long waits
        GroupMember survivor = before.members().get(0);
        GroupMember first = before.members().get(1);
        GroupMember second = before.members().get(2);

        // The first member's datanode dies and its member is replaced on the spare datanode.
        pass(Fixture.DATANODE_TIMEOUT + REPLACE_AFTER, first.datanodeId());
        GroupInfo.Change change = group(before.groupId()).change();
        assertThat(change.removed().memberId()).isEqualTo(first.memberId());
        heartbeat(survivor.datanodeId(), List.of(before.groupId()),
                new LeaderReport(before.groupId(), survivor.memberId(), 3, change.target().ids()));
        assertThat(group(before.groupId()).change()).isNull();

        // It comes back still hosting the old copy (told to delete it), then the second member dies.
        assertThat(heartbeat(first.datanodeId(), List.of(before.groupId())))
                .contains(new DeleteGroup(before.groupId()));
        pass(Fixture.DATANODE_TIMEOUT + REPLACE_AFTER, second.datanodeId());
        assertThat(group(before.groupId()).change()).as("the only other datanode still holds an old copy").isNull();

        // Once it no longer lists the group, the new member goes there.
        assertThat(heartbeat(first.datanodeId(), List.of())).isEmpty();
        pass(1_000, second.datanodeId());
        GroupInfo.Change next = group(before.groupId()).change();
        assertThat(next).isNotNull();
        assertThat(next.removed().memberId()).isEqualTo(second.memberId());
        assertThat(next.added().datanode().id()).isEqualTo(first.datanodeId());
        assertThat(heartbeat(first.datanodeId(), List.of())).singleElement()
                .isInstanceOfSatisfying(CreateGroup.class, c -> assertThat(c.self()).isEqualTo(4));
    }
}
