package io.tarn.it.compare;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The side-by-side comparison end to end at a tiny size (0.3 s per load point, an 8 MiB file): every
 * workload runs on Tarn, on HDFS and, where one applies, on its baseline, and the printed table has
 * every row with positive figures and ratios, including Tarn's short-circuit sequential rows, whose
 * baseline is Tarn's TCP path; with {@code --dram-root} the datanode's files go there and are gone
 * afterwards. No timing is asserted: this proves the runner works,
 * {@code bin/tarn-compare} measures.
 */
class SideBySideComparisonIT {
    private static final String NONE = "none";

    @TempDir
    Path workDir;

    @Test
    void everyWorkloadHasPositiveFiguresOnBothSidesAndItsBaseline() throws Exception {
        // --dram-root: a directory of its own on /dev/shm (where the datanode would go anyway), when there is one.
        Path shm = Path.of("/dev/shm");
        Path dramRoot = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "tarn-compare-it-") : workDir.resolve("dram");
        SideBySideComparison.Comparison c;
        try {
            c = SideBySideComparison.run(new CompareSettings(0.3, 0.1, 8, workDir, dramRoot));
            try (Stream<Path> left = Files.walk(dramRoot)) {
                assertThat(left.filter(Files::isRegularFile)).as("region files and the stream's file, gone").isEmpty();
            }
        } finally {
            try (Stream<Path> left = Files.walk(dramRoot)) {
                left.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        String table = c.markdown();

        List<String> lines = table.lines().toList();
        assertThat(lines.get(0)).isEqualTo(CompareTable.HEADER);
        Map<String, String[]> rows = lines.stream().skip(2)
                .map(l -> Arrays.stream(l.split("\\|")).skip(1).map(String::trim).toArray(String[]::new))
                .collect(Collectors.toMap(cells -> cells[0], Function.identity()));

        assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(expectedWorkloads());
        rows.forEach((workload, cells) -> {
            assertThat(cells).as(workload).hasSize(7);
            assertThat(number(cells[1])).as(workload + ": Tarn").isPositive();
            assertThat(number(cells[2])).as(workload + ": HDFS").isPositive();
            assertThat(number(cells[3])).as(workload + ": Tarn / HDFS").isPositive();
            if (workload.startsWith("create")) {
                assertThat(cells[4]).as(workload + ": baseline").isEqualTo(NONE);
            } else if (workload.contains("short-circuit")) {
                assertThat(cells[4]).as(workload + ": baseline").isEqualTo(CompareTable.TARN_TCP);
                assertThat(number(cells[5])).as(workload + ": Tarn TCP path").isPositive();
                assertThat(number(cells[6])).as(workload + ": short-circuit / TCP path").isPositive();
            } else {
                assertThat(cells[4]).as(workload + ": baseline")
                        .isIn(CompareTable.NETTY, CompareTable.PING_PONG, CompareTable.TCP,
                                CompareTable.TCP_INTO_MEMORY);
                assertThat(number(cells[5])).as(workload + ": baseline figure").isPositive();
                assertThat(number(cells[6])).as(workload + ": Tarn / baseline").isPositive();
            }
        });
        assertThat(rows.get(CompareTable.WRITE_VS_MEMORY)[1]).as("the write against the stream kept in memory")
                .isEqualTo(rows.get("sequential write, 1 MiB calls, MB/s")[1]);
        assertThat(rows.get(CompareTable.WRITE_VS_MEMORY)[4]).isEqualTo(CompareTable.TCP_INTO_MEMORY);
        assertThat(rows.get(CompareTable.SHORT_CIRCUIT_WRITE)[5]).as("short-circuit write: its baseline")
                .isEqualTo(rows.get("sequential write, 1 MiB calls, MB/s")[1]);
        assertThat(rows.get(CompareTable.SHORT_CIRCUIT_READ)[5]).as("short-circuit read: its baseline")
                .isEqualTo(rows.get("sequential read, 1 MiB calls, MB/s")[1]);
        List<String> durability = c.durability().lines()
                .filter(l -> l.startsWith("| ") && !l.startsWith("| workload")).toList();
        assertThat(durability).as("getFile, create + close and rename rows")
                .hasSize(CompareSettings.GET_FILE_DEPTHS.size() + 2 * CompareSettings.CREATE_DEPTHS.size());
        for (String line : durability) {
            String[] cells = Arrays.stream(line.split("\\|")).skip(1).map(String::trim).toArray(String[]::new);
            assertThat(cells).as(line).hasSize(9); // workload, none, disk, ratio, group, ratio, HDFS, two ratios
            for (int i = 1; i < 9; i++) {
                assertThat(number(cells[i])).as(line + ", column " + i).isPositive();
            }
        }
        assertThat(c.legend()).contains("Tarn (").contains("HDFS (").contains("mapped files under " + dramRoot)
                .contains("tarn.client.shortcircuit=off").contains("tarn.client.shortcircuit=auto");
    }

    private static List<String> expectedWorkloads() {
        List<String> names = new ArrayList<>();
        for (int depth : CompareSettings.GET_FILE_DEPTHS) {
            String name = "getFile, " + depth + " in flight";
            names.add(name + ", ops/s");
            names.add(name + ", p50 µs (lower is better)");
            names.add(name + ", p99 µs (lower is better)");
        }
        for (int depth : CompareSettings.CREATE_DEPTHS) {
            names.add("create + close empty file, " + depth + " in flight, ops/s");
        }
        names.add("sequential write, 1 MiB calls, MB/s");
        names.add(CompareTable.WRITE_VS_MEMORY);
        names.add("sequential read, 1 MiB calls, MB/s");
        names.add(CompareTable.SHORT_CIRCUIT_WRITE);
        names.add(CompareTable.SHORT_CIRCUIT_READ);
        return names;
    }

    private static double number(String cell) {
        return Double.parseDouble(cell.replace(",", ""));
    }
}
