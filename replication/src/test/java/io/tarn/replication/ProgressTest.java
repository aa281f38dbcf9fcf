package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The leader's bookkeeping of one follower: acknowledgments, bytes in flight, retransmit timeout. */
class ProgressTest {

    @Test
    void acknowledgmentsOutOfOrderAdvanceThePrefix() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        p.ackThrough(10);
        p.sent(11, 100, 0);
        p.sent(12, 100, 0);
        p.ack(12, 1);
        assertThat(p.ackPrefix).isEqualTo(10);
        assertThat(p.acked(12)).isTrue();
        p.ack(11, 1);
        assertThat(p.ackPrefix).isEqualTo(12);
        assertThat(p.inFlight).isEmpty();
        assertThat(p.bytesInFlight).isZero();
    }

    @Test
    void anAcknowledgmentFromBeforeAResyncIsNotCounted() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        p.ackThrough(114);
        p.sent(116, 8, 0);
        // The follower restarts on a wiped disk and syncs again; the old incarnation's
        // acknowledgment of 116 is still in the network.
        p.unsynced(103);
        assertThat(p.bytesInFlight).isZero();
        p.synced = true;
        p.ackThrough(114);
        p.ack(116, 1);
        assertThat(p.acked(116)).as("116 was not sent to the new incarnation").isFalse();
        p.sent(115, 8, 1);
        p.sent(116, 8, 1);
        p.ack(116, 2);
        p.ack(115, 2);
        assertThat(p.ackPrefix).isEqualTo(116);
    }

    @Test
    void bytesInFlightCountEachEntryOnceAndLeaveWithItsAcknowledgment() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        p.sent(1, 1000, 0);
        p.sent(2, 1000, 0);
        p.sent(2, 1000, 5);
        assertThat(p.bytesInFlight).as("a resend adds nothing").isEqualTo(2000);
        assertThat(p.admits(1000, 3000)).isTrue();
        assertThat(p.admits(1001, 3000)).isFalse();
        p.ack(2, 6);
        assertThat(p.bytesInFlight).isEqualTo(1000);
        p.ackThrough(1);
        assertThat(p.bytesInFlight).isZero();
        assertThat(p.admits(1 << 20, 3000)).as("one entry always goes when nothing is in flight").isTrue();
    }

    @Test
    void retransmitTimeoutDoublesPerResendRoundUpToTheMaximumAndResetsOnAFreshAcknowledgment() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        assertThat(p.retransmitTimeout(20, 500)).isEqualTo(20);
        p.backOff();
        assertThat(p.retransmitTimeout(20, 500)).isEqualTo(40);
        p.backOff();
        p.backOff();
        assertThat(p.retransmitTimeout(20, 500)).isEqualTo(160);
        for (int i = 0; i < 40; i++) {
            p.backOff();
        }
        assertThat(p.retransmitTimeout(20, 500)).isEqualTo(500);
        // An acknowledgment of a resent entry says nothing about the latency (Karn): no reset.
        p.sent(1, 8, 0);
        p.sent(1, 8, 100);
        p.ack(1, 101);
        assertThat(p.retransmitTimeout(20, 500)).isEqualTo(500);
        p.sent(2, 8, 200);
        p.ack(2, 201);
        assertThat(p.retransmitTimeout(20, 500)).as("progress resets the back-off").isEqualTo(20);
    }

    @Test
    void aFollowerHeardAfterASilenceGetsItsBackOffsReset() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        p.backOff();
        p.backOff();
        p.syncResends = 4;
        p.heard(10, 60);
        assertThat(p.retransmitTimeout(20, 500)).as("replies keep coming: still backed off").isEqualTo(80);
        p.heard(71, 60);
        assertThat(p.retransmitTimeout(20, 500)).as("back after a silence").isEqualTo(20);
        assertThat(p.syncResends).isZero();
        assertThat(p.lastContact).isEqualTo(71);
    }

    @Test
    void retransmitTimeoutFollowsTheMeasuredAcknowledgmentTime() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        long now = 0;
        for (long i = 1; i <= 50; i++) {
            p.sent(i, 1 << 20, now);
            now += 170;
            p.ack(i, now);
        }
        // A journal forcing 16 MiB in 170 ticks: resending every 20 ticks would send each entry ~9 times.
        assertThat(p.retransmitTimeout(20, 500)).isBetween(170L, 260L);
        assertThat(p.retransmitTimeout(20, 100)).as("never above the maximum").isEqualTo(100);
    }

    @Test
    void syncResendsBackOffUntilAReply() {
        Progress p = new Progress(1, 0, 0);
        p.syncSentAt = 0;
        assertThat(p.syncDue(19, 20, 500)).isFalse();
        assertThat(p.syncDue(20, 20, 500)).isTrue();
        p.syncResends = 3;
        assertThat(p.syncDue(159, 20, 500)).isFalse();
        assertThat(p.syncDue(160, 20, 500)).isTrue();
        p.syncResends = 30;
        assertThat(p.syncDue(500, 20, 500)).isTrue();
    }

    @Test
    void overReliableLinksEntriesWaitTheLongestPeriodUntilALossIsSuspected() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        p.sent(1, 1 << 20, 0);
        p.ack(1, 40); // a 40-tick acknowledgment: the estimate alone resends after mean + 4 deviations
        long estimated = p.retransmitTimeout(20, 500);
        assertThat(estimated).isBetween(40L, 200L);
        assertThat(p.retransmitTimeout(20, 500, false)).isEqualTo(estimated);
        assertThat(p.retransmitTimeout(20, 500, true)).as("nothing is lost unless the host says so").isEqualTo(500);

        p.lossSuspected = true; // the host reported a failed send
        assertThat(p.retransmitTimeout(20, 500, true)).isEqualTo(estimated);
        p.sent(2, 1 << 20, 100);
        p.sent(2, 1 << 20, 200); // a resend: no sample (Karn), the suspicion stays
        p.ack(2, 210);
        assertThat(p.lossSuspected).isTrue();
        p.sent(3, 1 << 20, 220);
        p.ack(3, 250); // sent once and acknowledged: the follower is receiving again
        assertThat(p.lossSuspected).isFalse();
        assertThat(p.retransmitTimeout(20, 500, true)).isEqualTo(500);
    }

    @Test
    void aSilenceAloneIsNoSignOfLoss() {
        Progress p = new Progress(1, 0, 0);
        p.heard(10, 60);
        p.heard(300, 60); // answers queued behind data on a loaded connection arrive late
        assertThat(p.lossSuspected).isFalse();
        assertThat(p.retransmitTimeout(20, 500, true)).isEqualTo(500);
    }

    @Test
    void overReliableLinksASyncIsResentOnlyAfterTheLongestPeriodOrASuspectedLoss() {
        Progress p = new Progress(1, 0, 0);
        assertThat(p.syncDue(0, 20, 500, true)).as("never sent: due").isTrue();
        p.syncSentAt = 100;
        assertThat(p.syncDue(130, 20, 500, false)).isTrue();
        assertThat(p.syncDue(130, 20, 500, true)).isFalse();
        assertThat(p.syncDue(600, 20, 500, true)).isTrue();
        p.lossSuspected = true;
        assertThat(p.syncDue(130, 20, 500, true)).isTrue();
    }
}
