package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.Message.Append;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Over reliable links a leader does not resend an entry on the retransmit timer (the first copy is
 * still on its way over the connection) but at once when the host reports the send failed, and at
 * the longest resend wait otherwise, as a safety net.
 */
class ReliableLinksTest {

    private static final ReplicationConfig RELIABLE = ReplicationConfig.builder().reliableLinks(true).build();

    /** Copies of entry {@code index} the leader sent to {@code to}. */
    private static long copies(TestCluster c, int leader, int to, long index) {
        return c.sentBy(leader, Append.class).stream().map(m -> (Append) m).filter(a -> a.to() == to)
                .flatMap(a -> a.entries().stream()).filter(e -> e.index() == index).count();
    }

    /** Writes once while the first copy of its entry to {@code slow} is lost; returns that Append. */
    private static Append writeLosingFirstCopy(TestCluster c, int leader, int slow) {
        AtomicReference<Append> lost = new AtomicReference<>();
        c.lose = m -> m instanceof Append a && a.to() == slow && !a.entries().isEmpty()
                && lost.compareAndSet(null, a);
        c.write(leader, 9, 1, 0, 1, 1);
        c.lose = m -> false;
        return lost.get();
    }

    @Test
    void anUnreportedLossWaitsForTheLongestResendPeriod() {
        TestCluster c = new TestCluster(RELIABLE, 3);
        int leader = c.electLeader();
        int slow = (leader + 1) % 3;
        Append lost = writeLosingFirstCopy(c, leader, slow);
        long index = lost.entries().get(0).index();
        c.tick(RELIABLE.retransmitMaxTicks() - 2);
        assertThat(copies(c, leader, slow, index)).as("no timer resend before the longest period").isEqualTo(1);
        c.tick(4);
        assertThat(copies(c, leader, slow, index)).as("the safety net").isEqualTo(2);
        assertThat(c.data.get(slow)).isEqualTo(c.data.get(leader));
    }

    @Test
    void aReportedLossIsResentAtTheNextTick() {
        TestCluster c = new TestCluster(RELIABLE, 3);
        int leader = c.electLeader();
        int slow = (leader + 1) % 3;
        Append lost = writeLosingFirstCopy(c, leader, slow);
        long index = lost.entries().get(0).index();
        c.r(leader).onSendFailed(lost);
        c.tick(RELIABLE.retransmitTicks() + 1);
        assertThat(copies(c, leader, slow, index)).as("resent after the report").isEqualTo(2);
        assertThat(c.data.get(slow)).isEqualTo(c.data.get(leader));
        // Acknowledged once more: the leader trusts the link again.
        c.write(leader, 9, 2, 1, 1, 2);
        c.tick(2 * RELIABLE.retransmitTicks());
        assertThat(copies(c, leader, slow, index + 1)).isEqualTo(1);
    }

    @Test
    void overUnreliableLinksTheTimerResendsWithoutAReport() {
        ReplicationConfig unreliable = RELIABLE.toBuilder().reliableLinks(false).build();
        TestCluster c = new TestCluster(unreliable, 3);
        int leader = c.electLeader();
        int slow = (leader + 1) % 3;
        Append lost = writeLosingFirstCopy(c, leader, slow);
        c.tick(unreliable.retransmitTicks() + 1);
        assertThat(copies(c, leader, slow, lost.entries().get(0).index())).isEqualTo(2);
        assertThat(c.data.get(slow)).isEqualTo(c.data.get(leader));
    }
}
