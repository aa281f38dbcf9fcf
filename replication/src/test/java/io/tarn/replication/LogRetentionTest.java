package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.Message.Append;
import io.tarn.replication.Message.InstallCheckpoint;
import org.junit.jupiter.api.Test;

/**
 * A leader's checkpoint cuts its log no further than a follower it hears from still needs, down
 * to where the previous checkpoint cut it: a follower that lags by more than the window catches up
 * from the log. New writes wait while a live voter is about to fall off it; only one that was
 * silent (down, cut off) falls further behind and needs an image.
 */
class LogRetentionTest {

    private static final ReplicationConfig CONFIG = ReplicationConfig.builder().window(8).checkpointInterval(32)
            .build();

    private static void write(TestCluster c, int leader, int from, int to) {
        for (int seq = from; seq <= to; seq++) {
            c.write(leader, 9, seq, seq % 16, 1, seq);
        }
    }

    @Test
    void aLaggingFollowerCatchesUpFromTheLogWithinOneInterval() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int slow = (leader + 1) % 3;
        // The slow follower hears the heartbeats (so the leader hears from it) but no entry arrives.
        c.lose = m -> m instanceof Append a && a.to() == slow && !a.entries().isEmpty();
        write(c, leader, 1, 40);
        assertThat(c.r(leader).checkpointIndex()).as("the leader checkpointed").isGreaterThanOrEqualTo(32);
        assertThat(c.r(leader).log.logStart()).as("the log the slow follower needs is kept").isLessThanOrEqualTo(2);

        c.lose = m -> false;
        c.tick(3 * CONFIG.retransmitMaxTicks());
        assertThat(c.sentBy(leader, InstallCheckpoint.class)).as("caught up from the log").isEmpty();
        assertThat(c.data.get(slow)).isEqualTo(c.data.get(leader));
    }

    @Test
    void writesWaitForALiveFollowerAboutToFallOffTheLogButNotForASilentOne() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int slow = (leader + 1) % 3;
        c.lose = m -> m instanceof Append a && a.to() == slow && !a.entries().isEmpty();
        write(c, leader, 1, 80);
        assertThat(c.count(ClientReply.WriteReply.class, Status.BUSY)).as("writes wait for the live follower")
                .isPositive();
        assertThat(c.r(leader).checkpointIndex()).as("one checkpoint only").isLessThan(64);
        assertThat(c.r(leader).log.logStart()).isLessThanOrEqualTo(2);
        assertThat(c.r(leader).admitsWrites()).as("a host holding writes sees why").isFalse();
        assertThat(c.r(leader).busyReason()).contains("waits for member " + slow + " to catch up");
        assertThat(c.r(leader).commitPrefix()).as("though nothing waits for a commit")
                .isEqualTo(c.r(leader).lastIndex());

        // Silent for an election timeout: no longer waited for; the next checkpoints cut the log.
        c.isolated.add(slow);
        c.tick(CONFIG.electionTimeoutMax() + 1);
        assertThat(c.r(leader).admitsWrites()).isTrue();
        assertThat(c.r(leader).busyReason()).isNull();
        write(c, leader, 81, 160);
        long checkpoint = c.r(leader).checkpointIndex();
        assertThat(checkpoint).isGreaterThanOrEqualTo(64);
        assertThat(c.r(leader).log.logStart()).as("never more than two intervals of log")
                .isGreaterThan(checkpoint - 2L * CONFIG.checkpointInterval());

        c.isolated.remove(slow);
        c.lose = m -> false;
        c.tick(3 * CONFIG.retransmitMaxTicks());
        assertThat(c.sentBy(leader, InstallCheckpoint.class)).as("too far behind for the log").isNotEmpty();
        assertThat(c.data.get(slow)).isEqualTo(c.data.get(leader));
    }

    @Test
    void aFollowerNotHeardFromIsNotWaitedFor() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int gone = (leader + 1) % 3;
        c.isolated.add(gone);
        c.tick(2 * CONFIG.electionTimeoutMax());
        write(c, leader, 1, 40);
        assertThat(c.r(leader).log.logStart()).as("cut at the window below the checkpoint")
                .isEqualTo(c.r(leader).checkpointIndex() - CONFIG.window() + 1);
    }

    /**
     * A voter that stays alive but never catches up (here: it hears heartbeats, every entry and
     * image sent to it is lost) holds writes back only for {@code laggardWaitTicks}; then the group writes on
     * without it, its log is cut, and it catches up from an image once entries reach it again.
     */
    @Test
    void aLiveFollowerThatNeverCatchesUpIsWaitedForOnlySoLong() {
        ReplicationConfig config = CONFIG.toBuilder().laggardWaitTicks(100).build();
        TestCluster c = new TestCluster(config, 3);
        int leader = c.electLeader();
        int slow = (leader + 1) % 3;
        c.lose = m -> m.to() == slow && (m instanceof Append a && !a.entries().isEmpty()
                || m instanceof InstallCheckpoint);
        write(c, leader, 1, 80);
        long busy = c.count(ClientReply.WriteReply.class, Status.BUSY);
        assertThat(busy).as("writes wait for the live follower at first").isPositive();
        assertThat(c.r(leader).admitsWrites()).isFalse();

        c.tick(config.laggardWaitTicks() + 1);
        assertThat(c.r(leader).admitsWrites()).as("no longer, once it waited laggardWaitTicks").isTrue();
        write(c, leader, 81, 160);
        assertThat(c.count(ClientReply.WriteReply.class, Status.BUSY)).as("no write refused since").isEqualTo(busy);
        assertThat(c.r(leader).checkpointIndex()).as("checkpoints went on").isGreaterThanOrEqualTo(96);
        assertThat(c.r(leader).log.logStart()).as("the log is no longer kept for it")
                .isGreaterThan(config.checkpointInterval());

        c.lose = m -> false;
        c.tick(3 * config.retransmitMaxTicks());
        assertThat(c.sentBy(leader, InstallCheckpoint.class)).as("it catches up from an image").isNotEmpty();
        assertThat(c.data.get(slow)).isEqualTo(c.data.get(leader));
    }
}
