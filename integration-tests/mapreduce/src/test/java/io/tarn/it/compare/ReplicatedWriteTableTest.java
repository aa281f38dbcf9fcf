package io.tarn.it.compare;

import io.tarn.it.compare.ReplicatedWriteTable.Ratio;
import io.tarn.it.compare.ReplicatedWriteTable.Series;
import io.tarn.it.compare.ReplicatedWriteTable.Workload;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The replicated-write tables: medians and ranges over rounds, ratios within rounds, failures counted. */
class ReplicatedWriteTableTest {
    private static final Series TARN = new Series("Tarn", 3, false);
    private static final Series HDFS = new Series("HDFS", 3, false);
    private static final Series HDFS_SYNC = new Series("HDFS", 3, true);

    private static AppendLoad.Figures small(double ops, double p50, double p99) {
        return new AppendLoad.Figures(ops, ops * 4096 / 1e6, p50, p99);
    }

    @Test
    void ratesAreMediansWithRangesAndRatiosAreTakenWithinEachRound() {
        ReplicatedWriteTable t = new ReplicatedWriteTable(List.of(TARN, HDFS));
        t.record(HDFS, Workload.SMALL, 1, 1, small(1_000, 50, 90));
        t.record(HDFS, Workload.SMALL, 1, 2, small(2_000, 60, 80));
        t.record(HDFS, Workload.SMALL, 1, 3, small(4_000, 70, 70));
        t.record(TARN, Workload.SMALL, 1, 1, small(3_000, 10, 20));
        t.record(TARN, Workload.SMALL, 1, 2, small(2_000, 20, 30));
        t.record(TARN, Workload.SMALL, 1, 3, small(1_000, 30, 40));
        List<String> lines = t.rates(Workload.SMALL, List.of(new Ratio(TARN, HDFS))).lines().toList();
        // Columns in the given order, whichever was recorded first.
        assertThat(lines.get(0)).isEqualTo("| depth | Tarn r3 writes/s | HDFS r3 writes/s | Tarn r3 / HDFS r3 |");
        // Round ratios 3.00, 1.00 and 0.25: their median is 1.00, whereas the medians' ratio would
        // be 2000 / 2000 = 1.00 by chance here, and the range tells the rounds apart.
        assertThat(lines.get(2)).isEqualTo("| 1 | 2,000 (1,000–3,000) | 2,000 (1,000–4,000) | 1.00 (0.25–3.00) |");
        assertThat(t.latencies(Workload.SMALL).lines().toList().get(2)).isEqualTo("| 1 | 20 / 30 | 60 / 80 |");
    }

    @Test
    void aRatioUsesOnlyRoundsWhereBothSidesWereMeasured() {
        ReplicatedWriteTable t = new ReplicatedWriteTable(List.of(TARN, HDFS_SYNC));
        t.record(TARN, Workload.SMALL, 4, 1, small(100, 1, 1));
        t.record(HDFS_SYNC, Workload.SMALL, 4, 1, small(50, 1, 1));
        t.record(TARN, Workload.SMALL, 4, 2, small(900, 1, 1));
        t.failed(HDFS_SYNC, Workload.SMALL, 4, "round 2: timed out");
        List<String> lines = t.rates(Workload.SMALL, List.of(new Ratio(TARN, HDFS_SYNC))).lines().toList();
        assertThat(lines.get(0)).contains("HDFS r3 hsync writes/s");
        assertThat(lines.get(2)).isEqualTo("| 4 | 500 (100–900) | 50, failed 1× | 2.00 |");
        assertThat(t.failureLines()).containsExactly("HDFS r3 hsync, small, depth 4: round 2: timed out");
    }

    @Test
    void aPointThatAlwaysFailedSaysSoAndSequentialRatesAreInMegabytes() {
        ReplicatedWriteTable t = new ReplicatedWriteTable(List.of(TARN, HDFS));
        t.failed(TARN, Workload.SEQUENTIAL, 16, "round 1: no leader");
        t.failed(TARN, Workload.SEQUENTIAL, 16, "round 2: no leader");
        t.record(HDFS, Workload.SEQUENTIAL, 16, 1, new AppendLoad.Figures(120, 125.8, Double.NaN, Double.NaN));
        List<String> lines = t.rates(Workload.SEQUENTIAL, List.of(new Ratio(TARN, HDFS))).lines().toList();
        assertThat(lines.get(0)).isEqualTo("| depth | Tarn r3 MB/s | HDFS r3 MB/s | Tarn r3 / HDFS r3 |");
        assertThat(lines.get(2)).isEqualTo("| 16 | failed (2×) | 126 | n/a |");
        assertThat(t.latencies(Workload.SEQUENTIAL).lines().toList().get(2)).isEqualTo("| 16 | n/a | n/a |");
    }

    @Test
    void smallRatiosKeepAThirdDecimal() {
        assertThat(ReplicatedWriteTable.ratio(0.0042)).isEqualTo("0.004");
        assertThat(ReplicatedWriteTable.ratio(0.25)).isEqualTo("0.25");
        assertThat(ReplicatedWriteTable.ratio(21.414)).isEqualTo("21.41");
    }

    @Test
    void baselinesAreMediansOverTheRounds() {
        ReplicatedWriteTable t = new ReplicatedWriteTable(List.of());
        t.baseline("TCP stream, MB/s", 5_000);
        t.baseline("TCP stream, MB/s", 3_000);
        t.baseline("TCP stream, MB/s", 4_000);
        assertThat(t.baselines().lines().toList().get(2))
                .isEqualTo("| TCP stream, MB/s | 4,000.0 | 3,000.0–5,000.0 | 3 |");
    }
}
