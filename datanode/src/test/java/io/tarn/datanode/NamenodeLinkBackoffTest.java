package io.tarn.datanode;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The registration back-off of {@link NamenodeLink}: doubling from the interval, capped. */
class NamenodeLinkBackoffTest {

    @Test
    void theWaitDoublesFromTheIntervalUpToTheCap() {
        long cap = NamenodeLink.backoffCap(200);
        assertThat(cap).isEqualTo(3_200);
        assertThat(NamenodeLink.backoff(200, cap, 1)).isEqualTo(200);
        assertThat(NamenodeLink.backoff(200, cap, 2)).isEqualTo(400);
        assertThat(NamenodeLink.backoff(200, cap, 3)).isEqualTo(800);
        assertThat(NamenodeLink.backoff(200, cap, 5)).isEqualTo(3_200);
        assertThat(NamenodeLink.backoff(200, cap, 6)).isEqualTo(3_200);
        assertThat(NamenodeLink.backoff(200, cap, 1_000_000)).as("no overflow").isEqualTo(3_200);
    }

    @Test
    void theCapStaysNearTheIntervalForShortOnesAndAtMostFifteenSecondsOtherwise() {
        assertThat(NamenodeLink.backoffCap(10)).isEqualTo(160);
        assertThat(NamenodeLink.backoffCap(1_000)).isEqualTo(NamenodeLink.MAX_BACKOFF_MS);
        assertThat(NamenodeLink.backoffCap(60_000)).as("never below the interval").isEqualTo(60_000);
    }
}
