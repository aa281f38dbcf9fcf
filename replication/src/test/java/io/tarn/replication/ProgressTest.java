package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The leader's bookkeeping of one follower's acknowledgments. */
class ProgressTest {

    @Test
    void acknowledgmentsOutOfOrderAdvanceThePrefix() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        p.ackThrough(10);
        p.sentAt.put(11L, 0L);
        p.sentAt.put(12L, 0L);
        p.ack(12);
        assertThat(p.ackPrefix).isEqualTo(10);
        assertThat(p.acked(12)).isTrue();
        p.ack(11);
        assertThat(p.ackPrefix).isEqualTo(12);
        assertThat(p.sentAt).isEmpty();
    }

    @Test
    void anAcknowledgmentFromBeforeAResyncIsNotCounted() {
        Progress p = new Progress(1, 0, 0);
        p.synced = true;
        p.ackThrough(114);
        p.sentAt.put(116L, 0L);
        // The follower restarts on a wiped disk and syncs again; the old incarnation's
        // acknowledgment of 116 is still in the network.
        p.unsynced(103);
        p.synced = true;
        p.ackThrough(114);
        p.ack(116);
        assertThat(p.acked(116)).as("116 was not sent to the new incarnation").isFalse();
        p.sentAt.put(115L, 1L);
        p.sentAt.put(116L, 1L);
        p.ack(116);
        p.ack(115);
        assertThat(p.ackPrefix).isEqualTo(116);
    }
}
