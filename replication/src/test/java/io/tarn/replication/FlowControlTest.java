package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.Message.Append;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The leader's flow control towards each follower: payload bytes in flight stay within
 * {@code maxBytesInFlight} (one entry always goes when nothing is in flight), entries waiting for
 * room follow the acknowledgments, unacknowledged entries are resent with a backed-off timeout, and
 * heartbeats keep their period whatever is held back.
 */
class FlowControlTest {

    private static final ReplicationConfig CONFIG = ElectionTest.CONFIG.toBuilder().window(16)
            .checkpointInterval(64).retransmitTicks(3).retransmitMaxTicks(24).maxBytesInFlight(3_000).build();

    @Test
    void bytesInFlightStayWithinTheCapAndAcknowledgmentsReleaseTheWaitingEntries() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int follower = (leader + 1) % 3;
        int other = (leader + 2) % 3;
        c.down.add(other);
        c.autoDisk = false;
        for (int seq = 1; seq <= 8; seq++) {
            submit(c, leader, seq, 1_000);
        }
        c.deliverAll();
        List<Long> sent = entriesSentTo(c, leader, follower);
        assertThat(sent).as("3 entries of 1000 bytes fill a cap of 3000").hasSize(3);
        int rounds = 0;
        while (c.r(leader).appliedPrefix() < c.r(leader).lastIndex() && rounds++ < 20) {
            c.completeDisk(follower);
            c.completeDisk(leader);
            c.deliverAll();
            assertThat(entriesSentTo(c, leader, follower).size() - sent.size()).as("at most 3000 bytes more")
                    .isLessThanOrEqualTo(3);
            sent = entriesSentTo(c, leader, follower);
        }
        assertThat(c.r(follower).lastIndex()).as("every waiting entry reached the follower")
                .isEqualTo(c.r(leader).lastIndex());
        assertThat(c.count(ClientReply.WriteReply.class, Status.OK)).isEqualTo(8);
        assertThat(sent).as("each entry sent once").doesNotHaveDuplicates();
    }

    @Test
    void anEntryLargerThanTheCapGoesAloneWhenNothingIsInFlight() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int follower = (leader + 1) % 3;
        c.autoDisk = false;
        long before = c.r(leader).lastIndex();
        submit(c, leader, 1, 5_000);
        submit(c, leader, 2, 5_000);
        c.deliverAll();
        assertThat(entriesSentTo(c, leader, follower)).containsExactly(before + 1);
        c.completeDisk(follower);
        c.deliverAll();
        assertThat(entriesSentTo(c, leader, follower)).containsExactly(before + 1, before + 2);
    }

    @Test
    void resendsBackOffWhileHeartbeatsKeepTheirPeriodAndAnAcknowledgmentResetsTheBackOff() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int follower = (leader + 1) % 3;
        c.tick(CONFIG.heartbeatTicks() * 2);
        // Entries to the follower are lost; heartbeats (no entries) still arrive.
        c.lose = m -> m instanceof Append a && a.to() == follower && !a.entries().isEmpty();
        List<Long> sendTimes = new ArrayList<>();
        int heartbeats = 0;
        c.write(leader, 9, 1, 0, 1, 1);
        for (int t = 0; t < 120; t++) {
            for (Append a : tickAndCollect(c, leader, follower)) {
                if (a.entries().isEmpty()) {
                    heartbeats++;
                } else {
                    sendTimes.add(c.r(leader).now());
                }
            }
        }
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < sendTimes.size(); i++) {
            gaps.add(sendTimes.get(i) - sendTimes.get(i - 1));
        }
        assertThat(gaps).as("resend gaps double up to the maximum").startsWith(6L, 12L, 24L);
        assertThat(gaps.subList(2, gaps.size())).containsOnly(24L);
        assertThat(heartbeats).as("a heartbeat every heartbeat period").isGreaterThanOrEqualTo(120 / 3 - 1);
        assertThat(c.r(follower).role()).isEqualTo(Role.FOLLOWER);
        assertThat(c.r(leader).role()).isEqualTo(Role.LEADER);

        c.lose = m -> false;
        c.tick(25);
        assertThat(c.r(follower).lastIndex()).isEqualTo(c.r(leader).lastIndex());
        // Progress (an entry acknowledged after one send) resets the back-off to the minimum.
        c.write(leader, 9, 2, 1, 1, 2);
        c.lose = m -> m instanceof Append a && a.to() == follower && !a.entries().isEmpty();
        c.write(leader, 9, 3, 2, 1, 3);
        long lostAt = c.r(leader).now();
        long resentAt = -1;
        for (int t = 0; t < 10 && resentAt < 0; t++) {
            if (tickAndCollect(c, leader, follower).stream().anyMatch(a -> !a.entries().isEmpty())) {
                resentAt = c.r(leader).now();
            }
        }
        assertThat(resentAt - lostAt).isEqualTo(CONFIG.retransmitTicks());
    }

    @Test
    void noCopyIsResentBeforeTheLeadersOwnCopyIsDurable() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int follower = (leader + 1) % 3;
        c.autoDisk = false;
        c.lose = m -> m instanceof Append a && a.to() == follower && !a.entries().isEmpty();
        submit(c, leader, 1, 1_000);
        c.deliverAll();
        assertThat(dataAppendsDuring(c, leader, follower, 30)).as("our own journal is still forcing the entry")
                .isZero();
        c.completeDisk(leader);
        c.deliverAll();
        assertThat(dataAppendsDuring(c, leader, follower, CONFIG.retransmitTicks())).isEqualTo(1);
    }

    @Test
    void aFollowerBackFromASilenceGetsItsEntriesWithoutWaitingOutTheBackOff() {
        ReplicationConfig config = CONFIG.toBuilder().retransmitMaxTicks(400).build();
        TestCluster c = new TestCluster(config, 3);
        int leader = c.electLeader();
        int follower = (leader + 1) % 3;
        c.down.add(follower);
        c.write(leader, 9, 1, 0, 1, 1);
        c.tick(120);
        assertThat(c.r(follower).lastIndex()).isLessThan(c.r(leader).lastIndex());
        // Resends backed off to 96 ticks and more meanwhile; the first reply after the silence resets that.
        c.down.remove(follower);
        c.tick(config.heartbeatTicks() + config.retransmitTicks());
        assertThat(c.r(follower).lastIndex()).isEqualTo(c.r(leader).lastIndex());
    }

    /** Ticks once; returns the appends (heartbeats included) the leader sent the follower meanwhile. */
    private static List<Append> tickAndCollect(TestCluster c, int leader, int follower) {
        List<Effect> history = c.history.get(leader);
        int before = history.size();
        c.tick(1);
        List<Append> out = new ArrayList<>();
        for (Effect e : history.subList(before, history.size())) {
            if (e instanceof Effect.Send s && s.message() instanceof Append a && a.to() == follower) {
                out.add(a);
            }
        }
        return out;
    }

    /** Ticks {@code ticks} times; returns how many appends carrying entries the leader sent the follower. */
    private static int dataAppendsDuring(TestCluster c, int leader, int follower, int ticks) {
        int count = 0;
        for (int t = 0; t < ticks; t++) {
            count += (int) tickAndCollect(c, leader, follower).stream().filter(a -> !a.entries().isEmpty()).count();
        }
        return count;
    }

    private static void submit(TestCluster c, int leader, long seq, int bytes) {
        WriteCommand command = new WriteCommand(9, seq, 1, new BlockRange(seq * 4, 1), new ValuePayload(seq, bytes));
        c.r(leader).submitWrite(new ClientWrite(command));
        c.collect();
    }

    /** Indices of the entries {@code leader} sent to {@code follower}, in send order. */
    private static List<Long> entriesSentTo(TestCluster c, int leader, int follower) {
        List<Long> out = new ArrayList<>();
        for (Message m : c.sentBy(leader, Append.class)) {
            if (m.to() == follower) {
                ((Append) m).entries().stream().filter(e -> !e.isNoop()).forEach(e -> out.add(e.index()));
            }
        }
        return out;
    }
}
