package io.tarn.it.compare;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The table of several rounds: ratios taken within each round, then their median and range. */
class CompareTableTest {
    private static List<CompareTable.Row> round(double tarn, double hdfs, double echo, double create) {
        return List.of(
                new CompareTable.Row("getFile, 128 in flight, ops/s", tarn, hdfs, CompareTable.NETTY, echo, "%,.0f"),
                new CompareTable.Row("create + close empty file, 1 in flight, ops/s", create, 1_000, "", Double.NaN,
                        "%,.0f"));
    }

    @Test
    void eachRatioIsTakenWithinItsRoundThenSummarised() {
        String table = CompareTable.summary(List.of(
                round(1_000_000, 40_000, 1_000_000, 10_000),   // 25.00 over HDFS, 1.00 over the echo
                round(1_100_000, 50_000, 1_000_000, 7_000),    // 22.00, 1.10
                round(900_000, 30_000, 1_000_000, 12_000)));   // 30.00, 0.90
        List<String> lines = table.lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).isEqualTo(CompareTable.SUMMARY_HEADER);
        // The median of the three rounds' own ratios; the ratio of the median figures would be
        // 1.0 M / 40 k = 25 as well here, but from figures of different rounds.
        assertThat(lines.get(2)).isEqualTo(
                "| getFile, 128 in flight, ops/s | 25.00 (22.00–30.00) | Netty echo | 1.00 (0.90–1.10) |");
        assertThat(lines.get(3)).isEqualTo(
                "| create + close empty file, 1 in flight, ops/s | 10.00 (7.00–12.00) | none | n/a |");
    }

    @Test
    void anEvenNumberOfRoundsTakesTheMeanOfTheMiddleTwo() {
        assertThat(CompareTable.spread(new double[] {4, 1, 3, 2})).isEqualTo("2.50 (1.00–4.00)");
        assertThat(CompareTable.spread(new double[] {2, Double.NaN})).isEqualTo("n/a");
    }

    @Test
    void smallRatiosKeepTwoSignificantDigits() {
        assertThat(CompareTable.ratio(303, 50_327)).isEqualTo("0.0060");
        assertThat(CompareTable.ratio(1, 8)).isEqualTo("0.13");
        assertThat(CompareTable.ratio(0, 8)).isEqualTo("0.00");
        assertThat(CompareTable.ratio(25, 1)).isEqualTo("25.00");
        assertThat(CompareTable.ratio(1, 0)).isEqualTo("n/a");
    }

    @Test
    void roundsWithDifferentWorkloadsAreRefused() {
        assertThatThrownBy(() -> CompareTable.summary(List.of(round(1, 1, 1, 1), round(1, 1, 1, 1).subList(0, 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("different workloads");
    }
}
