package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.Message.TimeoutNow;
import org.junit.jupiter.api.Test;

/** Leader transfer, catch-up from the log and from a checkpoint, and non-voter rejoin after disk loss. */
class MembershipTest {

    private static final ReplicationConfig CONFIG = ElectionTest.CONFIG;

    static void writeMany(TestCluster c, int leader, int from, int to) {
        for (int seq = from; seq <= to; seq++) {
            c.write(leader, 9, seq, seq % 16, 1, seq);
        }
    }

    @Test
    void leadershipTransfersToTheRequestedReplica() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        writeMany(c, leader, 1, 3);
        int target = (leader + 2) % 3;
        c.r(leader).transferLeadership(target);
        c.deliverAll();
        assertThat(c.sentBy(leader, TimeoutNow.class)).hasSize(1);
        c.tick(5);
        assertThat(c.r(target).isActiveLeader()).isTrue();
        assertThat(c.r(leader).role()).isEqualTo(Role.FOLLOWER);
        writeMany(c, target, 4, 5);
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.data.get(leader)).isEqualTo(c.data.get(target));
    }

    @Test
    void laggingFollowerCatchesUpIncrementallyFromTheLog() {
        TestCluster c = new TestCluster(CONFIG.toBuilder().checkpointInterval(1000).build(), 3);
        int leader = c.electLeader();
        int lagging = (leader + 1) % 3;
        c.down.add(lagging);
        writeMany(c, leader, 1, 12);
        c.down.remove(lagging);
        c.tick(CONFIG.heartbeatTicks() * 6);
        assertThat(c.r(lagging).appliedPrefix()).isEqualTo(c.r(leader).appliedPrefix());
        assertThat(c.sentBy(leader, Message.InstallCheckpoint.class)).isEmpty();
        assertThat(c.data.get(lagging)).isEqualTo(c.data.get(leader));
    }

    @Test
    void followerBehindTheCheckpointGetsAStreamingCopyThenTheLog() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int lagging = (leader + 1) % 3;
        c.down.add(lagging);
        // Once it has been silent for an election timeout the leader no longer waits for it.
        c.tick(CONFIG.electionTimeoutMax());
        writeMany(c, leader, 1, 30);
        assertThat(c.r(leader).checkpointIndex()).isGreaterThan(CONFIG.window());
        c.down.remove(lagging);
        c.tick(CONFIG.heartbeatTicks() * 10);
        assertThat(c.sentBy(leader, Message.InstallCheckpoint.class)).isNotEmpty();
        assertThat(c.r(lagging).appliedPrefix()).isEqualTo(c.r(leader).appliedPrefix());
        assertThat(c.data.get(lagging)).isEqualTo(c.data.get(leader));
    }

    @Test
    void replicaThatLostItsDiskRejoinsAsNonVoterUntilCaughtUp() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        writeMany(c, leader, 1, 20);
        int wiped = (leader + 1) % 3;
        c.start(wiped, PersistentState.wiped());
        assertThat(c.r(wiped).isVoter()).isFalse();
        // A non-voter never votes, whatever it is asked.
        c.r(wiped).handle(new Message.RequestVote((leader + 2) % 3, wiped, 99, 99, 999, 999, true));
        assertThat(c.r(wiped).drainEffects()).anyMatch(e -> e instanceof Effect.Send s
                && s.message() instanceof Message.VoteReply v && !v.granted());
        c.tick(CONFIG.heartbeatTicks() * 10);
        assertThat(c.r(wiped).isVoter()).isTrue();
        assertThat(c.data.get(wiped)).isEqualTo(c.data.get(leader));
        // It counts again: the group survives losing the third replica.
        c.down.add((leader + 2) % 3);
        writeMany(c, leader, 21, 22);
        assertThat(c.r(leader).isCommitted(c.r(leader).lastIndex())).isTrue();
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.r(wiped).isApplied(c.r(leader).lastIndex())).isTrue();
    }

    @Test
    void rejoinerIsPromotedOnlyOnceItHoldsEntriesCommittedAboveTheCommitPrefix() {
        TestCluster c = new TestCluster(CONFIG.toBuilder().checkpointInterval(1000).build(), 3);
        int first = c.electLeader();
        writeMany(c, first, 1, 3);
        // A new leader, so that the first entries reach a rejoiner through the sync stage's merged log.
        int leader = (first + 1) % 3;
        c.r(first).transferLeadership(leader);
        c.deliverAll();
        c.tick(5);
        assertThat(c.r(leader).isActiveLeader()).isTrue();
        int rejoiner = (leader + 1) % 3;
        int other = (leader + 2) % 3;
        long hole = c.r(leader).lastIndex() + 1;
        long above = hole + 1;
        c.down.add(other);
        // The hole's entry reaches nobody; the next one reaches the rejoiner and commits out of order.
        c.lose = m -> m instanceof Message.Append a && a.entries().stream().anyMatch(e -> e.index() == hole);
        c.write(leader, 9, 4, 0, 1, 4);
        c.write(leader, 9, 5, 1, 1, 5);
        assertThat(c.r(leader).isCommitted(above)).isTrue();
        assertThat(c.r(leader).commitPrefix()).isLessThan(hole);
        // The rejoiner loses its disk: the committed entry now lives on the leader only.
        c.start(rejoiner, PersistentState.wiped());
        c.down.remove(other);
        c.lose = m -> m instanceof Message.Append a && a.entries().stream().anyMatch(e -> e.index() >= hole);
        for (int t = 0; t < CONFIG.heartbeatTicks() * 10; t++) {
            c.tick(1);
            assertThat(c.r(rejoiner).isVoter() && c.r(rejoiner).entry(above) == null)
                    .as("promoted without the entry committed above the prefix").isFalse();
        }
        c.lose = m -> false;
        c.tick(CONFIG.heartbeatTicks() * 10);
        assertThat(c.r(rejoiner).isVoter()).isTrue();
        assertThat(c.r(rejoiner).entry(above)).isNotNull();
    }
}
