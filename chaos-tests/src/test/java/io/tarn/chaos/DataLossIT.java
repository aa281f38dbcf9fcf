package io.tarn.chaos;

import io.tarn.dist.LocalCluster;
import io.tarn.tools.chaos.ChaosOptions;
import io.tarn.tools.chaos.ChaosReport;
import io.tarn.tools.chaos.ChaosRun;
import io.tarn.tools.chaos.Fault;
import io.tarn.tools.chaos.Launcher;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness sees a loss: the {@code wipe} fault kills a datanode with kill -9 and deletes its
 * memory files before starting it again, which without replication loses the blocks it held. The
 * verdict must fail, name lost writes, keep the history and print the seed and the replay command.
 */
class DataLossIT {
    @BeforeAll
    static void needsNamespaces() {
        Namespaces.assumeAvailable();
    }

    @Test
    void wipingADatanodeFailsTheVerdict() throws Exception {
        ChaosOptions options = new ChaosOptions(6_000, 3, 3, 4, List.of(Fault.WIPE), 1, 1, null, 6000,
                ChaosOptions.DEFAULT_DATANODE_MEMORY);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        ChaosReport report = new ChaosRun(options, Launcher.distribution(LocalCluster.home()),
                new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
        try {
            assertThat(report.faults()).containsKey("wipe");
            assertThat(report.passed()).isFalse();
            assertThat(report.lost()).isNotEmpty();
            assertThat(report.acknowledged()).isGreaterThan(report.lost().size());
            assertThat(report.history()).isRegularFile();
            assertThat(Files.readString(report.history())).contains("\"action\":\"wipe\"", "\"outcome\":\"ok\"");
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            report.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
            assertThat(printed.toString(StandardCharsets.UTF_8)).contains("verdict: FAIL", "lost k", "seed: 3",
                    "bin/tarn chaos --duration 6s --seed 3 --datanodes 3", "--faults wipe", "history: ");
        } finally {
            deleteTree(report.history().getParent());
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
