package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionsTest {

    private static WriteCommand cmd(long seq, long firstUnacked) {
        return new WriteCommand(7, seq, firstUnacked, new BlockRange(seq, 1), new ValuePayload(seq));
    }

    @Test
    void appliedSequenceIsADuplicate() {
        Sessions s = new Sessions();
        assertThat(s.isDuplicate(7, 1)).isFalse();
        s.recordApplied(cmd(1, 1));
        assertThat(s.isDuplicate(7, 1)).isTrue();
        assertThat(s.isDuplicate(7, 2)).isFalse();
    }

    @Test
    void floorAdvancesOnlyWhenThePrefixPassesAndForgetsBelowIt() {
        Sessions s = new Sessions();
        s.recordApplied(cmd(5, 5));
        s.recordApplied(cmd(3, 3));
        assertThat(s.isDuplicate(7, 4)).as("out-of-order apply of 5 must not hide 4").isFalse();
        s.onPrefixPassed(cmd(5, 5));
        assertThat(s.isDuplicate(7, 4)).as("the client promised never to retry below 5").isTrue();
        assertThat(s.snapshot().get(7L).appliedSeqs()).containsExactly(5L);
    }

    @Test
    void snapshotRestoresTheSameDecisions() {
        Sessions s = new Sessions();
        s.recordApplied(cmd(2, 1));
        s.onPrefixPassed(cmd(2, 2));
        Sessions copy = new Sessions();
        copy.restore(s.snapshot());
        assertThat(copy.isDuplicate(7, 1)).isTrue();
        assertThat(copy.isDuplicate(7, 2)).isTrue();
        assertThat(copy.isDuplicate(7, 3)).isFalse();
    }
}
