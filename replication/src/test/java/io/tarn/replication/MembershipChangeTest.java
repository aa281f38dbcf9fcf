package io.tarn.replication;

import static io.tarn.replication.MembershipTest.writeMany;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Single-member changes: adding a member (non-voter first, promoted once caught up), removing a
 * dead member, replacing one, removing the leader itself, the barrier around a configuration
 * entry, and changes racing a leader crash and a merge.
 */
class MembershipChangeTest {

    private static final ReplicationConfig CONFIG = ElectionTest.CONFIG;

    private static int activeLeader(TestCluster c) {
        for (int id : c.nodes) {
            if (!c.down.contains(id) && c.r(id).isActiveLeader()) {
                return id;
            }
        }
        return -1;
    }

    private static boolean changed(TestCluster c, int node, List<Integer> members) {
        return c.history.get(node).stream().anyMatch(e -> e instanceof Effect.MembershipChanged m
                && m.members().equals(members));
    }

    @Test
    void newMemberJoinsAsNonVoterCatchesUpAndIsPromoted() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        writeMany(c, leader, 1, 20);
        c.join(3);
        assertThat(c.r(3).isVoter()).isFalse();
        assertThat(c.r(leader).confirmedVoters()).containsExactly(0, 1, 2);
        assertThat(c.r((leader + 1) % 3).confirmedVoters()).as("only a leader knows").isEmpty();
        c.down.add(3);
        assertThat(c.r(leader).addMember(3)).isEqualTo(Status.OK);
        c.tick(CONFIG.heartbeatTicks() * 3);
        assertThat(c.r(leader).members()).as("the change is in force").contains(3);
        assertThat(c.r(leader).confirmedVoters()).as("not before the new member caught up").doesNotContain(3);
        c.down.remove(3);
        c.tick(CONFIG.heartbeatTicks() * 10);
        assertThat(c.r(leader).confirmedVoters()).containsExactly(0, 1, 2, 3);
        assertThat(c.r(leader).members()).containsExactly(0, 1, 2, 3);
        assertThat(c.r(3).members()).containsExactly(0, 1, 2, 3);
        assertThat(c.r(3).isVoter()).isTrue();
        assertThat(c.sentBy(leader, Message.InstallCheckpoint.class)).anyMatch(m -> m.to() == 3);
        for (int id : c.nodes) {
            assertThat(changed(c, id, List.of(0, 1, 2, 3))).as("node " + id + " applied the change").isTrue();
        }
        writeMany(c, leader, 21, 22);
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.data.get(3)).isEqualTo(c.data.get(leader));
    }

    @Test
    void deadMemberIsReplacedOneChangeAtATime() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        writeMany(c, leader, 1, 5);
        int dead = (leader + 1) % 3;
        int survivor = (leader + 2) % 3;
        c.down.add(dead);
        assertThat(c.r(leader).removeMember(dead)).isEqualTo(Status.OK);
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.r(leader).members()).doesNotContain(dead).hasSize(2);
        // Two members: a quorum is both of them.
        writeMany(c, leader, 6, 8);
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.r(survivor).isApplied(c.r(leader).lastIndex())).isTrue();
        c.join(7);
        assertThat(c.r(leader).addMember(7)).isEqualTo(Status.OK);
        c.tick(CONFIG.heartbeatTicks() * 10);
        assertThat(c.r(leader).members()).containsExactly(List.of(leader, survivor, 7).stream().sorted()
                .toArray(Integer[]::new));
        assertThat(c.r(7).isVoter()).isTrue();
        // The new member counts: the group survives losing the survivor.
        c.down.add(survivor);
        writeMany(c, leader, 9, 10);
        assertThat(c.r(leader).isCommitted(c.r(leader).lastIndex())).isTrue();
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.data.get(7)).isEqualTo(c.data.get(leader));
        // The removed replica, back from the dead, cannot disturb the group.
        c.down.remove(dead);
        c.tick(CONFIG.electionTimeoutMax() * 3);
        assertThat(c.r(leader).isActiveLeader()).isTrue();
    }

    @Test
    void removingTheLeaderHandsLeadershipOver() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        writeMany(c, leader, 1, 5);
        assertThat(c.r(leader).removeMember(leader)).isEqualTo(Status.OK);
        c.tick(CONFIG.heartbeatTicks() * 3);
        assertThat(c.r(leader).role()).isNotEqualTo(Role.LEADER);
        int next = activeLeader(c);
        assertThat(next).isNotEqualTo(leader).isNotNegative();
        assertThat(c.r(next).members()).doesNotContain(leader).hasSize(2);
        writeMany(c, next, 6, 8);
        int other = 3 - leader - next;
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.data.get(other)).isEqualTo(c.data.get(next));
        // The removed leader never stands again.
        c.tick(CONFIG.electionTimeoutMax() * 3);
        assertThat(c.r(leader).role()).isEqualTo(Role.FOLLOWER);
        assertThat(c.r(next).isActiveLeader()).isTrue();
    }

    @Test
    void configurationEntryIsABarrierForWritesInFlight() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        writeMany(c, leader, 1, 3);
        c.autoDisk = false;
        c.write(leader, 9, 4, 4, 1, 4);
        long inFlight = c.r(leader).lastIndex();
        assertThat(c.r(leader).isCommitted(inFlight)).isFalse();
        c.join(3);
        assertThat(c.r(leader).addMember(3)).isEqualTo(Status.OK);
        // Nothing is appended while an entry is in flight, and writes wait for the change.
        assertThat(c.r(leader).lastIndex()).isEqualTo(inFlight);
        assertThat(c.r(leader).addMember(4)).isEqualTo(Status.BUSY);
        c.write(leader, 9, 5, 5, 1, 5);
        assertThat(c.replies).anyMatch(r -> r instanceof ClientReply.WriteReply w && w.sequence() == 5
                && w.status() == Status.BUSY);
        c.autoDisk = true;
        c.deliverAll();
        LogEntry change = c.r(leader).entry(inFlight + 1);
        assertThat(change.isConfiguration()).isTrue();
        assertThat(c.r(leader).isCommitted(inFlight + 1)).isTrue();
        c.write(leader, 9, 6, 6, 1, 6);
        assertThat(c.r(leader).entry(inFlight + 2).isConfiguration()).isFalse();
    }

    @Test
    void onlySingleMemberChangesAreAccepted() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        assertThatThrownBy(() -> c.r(leader).proposeMembership(List.of(0, 1, 2, 3, 4)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.r(leader).proposeMembership(List.of(0, 1, 2)))
                .isInstanceOf(IllegalArgumentException.class);
        int follower = (leader + 1) % 3;
        assertThat(c.r(follower).addMember(3)).isEqualTo(Status.NOT_LEADER);
    }

    @Test
    void changeLostWithItsLeaderLeavesTheGroupConsistentAndCanBeRetried() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        writeMany(c, leader, 1, 3);
        c.join(3);
        // The configuration entry reaches nobody; the leader crashes.
        c.lose = m -> m instanceof Message.Append a && a.entries().stream().anyMatch(LogEntry::isConfiguration);
        assertThat(c.r(leader).addMember(3)).isEqualTo(Status.OK);
        assertThat(c.r(leader).members()).contains(3);
        c.down.add(leader);
        c.lose = m -> false;
        c.tick(CONFIG.electionTimeoutMax() * 3);
        int next = activeLeader(c);
        assertThat(next).isNotNegative().isNotEqualTo(leader);
        assertThat(c.r(next).members()).containsExactly(0, 1, 2);
        // The old leader's uncommitted change is dropped when it rejoins, then the host retries.
        c.down.remove(leader);
        c.tick(CONFIG.heartbeatTicks() * 5);
        assertThat(c.r(leader).members()).containsExactly(0, 1, 2);
        assertThat(c.r(next).addMember(3)).isEqualTo(Status.OK);
        c.tick(CONFIG.heartbeatTicks() * 10);
        for (int id : c.nodes) {
            assertThat(c.r(id).members()).as("node " + id).containsExactly(0, 1, 2, 3);
        }
        assertThat(c.r(3).isVoter()).isTrue();
    }

    @Test
    void changeRacingAMergeIsKeptAndQuorumFollowsTheMergedConfiguration() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        writeMany(c, leader, 1, 3);
        int holder = (leader + 1) % 3;
        int other = (leader + 2) % 3;
        c.join(3);
        // The change reaches one follower only, then the leader crashes before it commits.
        c.lose = m -> m.to() == other && m instanceof Message.Append a
                && a.entries().stream().anyMatch(LogEntry::isConfiguration);
        c.autoDisk = false;
        assertThat(c.r(leader).addMember(3)).isEqualTo(Status.OK);
        c.deliverAll();
        c.completeDisk(holder);
        c.deliverAll();
        c.down.add(leader);
        c.autoDisk = true;
        c.lose = m -> false;
        assertThat(c.r(holder).members()).contains(3);
        assertThat(c.r(other).members()).doesNotContain(3);
        // Holder needs three votes of four and other's log is behind holder's: no leader, so no
        // entry can commit without a quorum of the four-member configuration.
        c.tick(CONFIG.electionTimeoutMax() * 4);
        assertThat(activeLeader(c)).isNegative();
        // The old leader returns: the merge keeps the change, it commits, the new member is
        // promoted, all agree.
        c.down.remove(leader);
        c.tick(CONFIG.electionTimeoutMax() * 4);
        int next = activeLeader(c);
        assertThat(next).isNotNegative();
        c.tick(CONFIG.heartbeatTicks() * 10);
        for (int id : c.nodes) {
            assertThat(c.r(id).members()).as("node " + id).containsExactly(0, 1, 2, 3);
        }
        assertThat(c.r(3).isVoter()).isTrue();
        writeMany(c, next, 4, 5);
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.data.get(3)).isEqualTo(c.data.get(next));
    }
}
