package io.tarn.tools.chaos;

import io.tarn.tools.TarnCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The options of {@code tarn chaos}: what they accept, and usage errors before anything starts. */
class ChaosCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return TarnCli.commandLine(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
    }

    @Test
    void durationsAndFaultListsParse() {
        assertThat(ChaosCommand.parseDuration("60s")).isEqualTo(60_000);
        assertThat(ChaosCommand.parseDuration("2m")).isEqualTo(120_000);
        assertThat(ChaosCommand.parseDuration("1500ms")).isEqualTo(1_500);
        assertThat(ChaosCommand.parseDuration("90")).isEqualTo(90_000);
        assertThatThrownBy(() -> ChaosCommand.parseDuration("soon")).hasMessageContaining("--duration");
        assertThat(ChaosCommand.parseFaults("kill, PAUSE,kill")).containsExactly(Fault.KILL, Fault.PAUSE);
        assertThat(ChaosCommand.parseFaults("none")).isEmpty();
        assertThatThrownBy(() -> ChaosCommand.parseFaults("kill,reboot"))
                .hasMessageContaining("unknown fault 'reboot'");
    }

    @Test
    void usageErrorsExitTwoBeforeAnythingStarts() {
        assertThat(run("chaos", "--replication", "2")).isEqualTo(TarnCli.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--replication 2: Tarn keeps 1 or 3 copies");
        assertThat(run("chaos", "--faults", "reboot")).isEqualTo(TarnCli.EXIT_USAGE);
        assertThat(run("chaos", "--datanodes", "0")).isEqualTo(TarnCli.EXIT_USAGE);
        assertThat(run("chaos", "--datanodes", "2", "--max-faulty", "3")).isEqualTo(TarnCli.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--max-faulty must be from 1 to the number of "
                + "datanodes (2), got 3");
        assertThat(run("chaos", "--datanode-memory", "100m")).isEqualTo(TarnCli.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--datanode-memory must be a multiple of 16m from "
                + "64m to 64g, got 100m");
        assertThat(run("chaos", "--datanode-memory", "lots")).isEqualTo(TarnCli.EXIT_USAGE);
    }

    @Test
    void keptHistoryIsCheckedAgainWithoutACluster(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("good.jsonl");
        Files.writeString(good, """
                {"event":"invoke","id":1,"client":0,"op":"write","key":"k0","value":"a","t":10}
                {"event":"complete","id":1,"outcome":"ok","value":"a","t":20}
                {"event":"invoke","id":2,"client":1,"op":"read","key":"k0","t":30}
                {"event":"complete","id":2,"outcome":"ok","value":"a","t":40}
                """);
        assertThat(run("chaos", "--check-history", good.toString())).isZero();
        Path stale = dir.resolve("stale.jsonl");
        Files.writeString(stale, Files.readString(good).replace("\"outcome\":\"ok\",\"value\":\"a\",\"t\":40",
                "\"outcome\":\"ok\",\"t\":40"));
        assertThat(run("chaos", "--check-history", stale.toString())).isEqualTo(TarnCli.EXIT_FAILURE);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("linearizability: linearizable (2 operations",
                "NOT linearizable: key k0", "#2 c1 read(k0)=absent [30, 40] ok");
    }

    @Test
    void replayCommandRepeatsEveryOption() {
        ChaosOptions options = new ChaosOptions(1_500, 42, 3, 2, List.of(Fault.KILL, Fault.ISOLATE), 1, 2, null, 4096,
                1L << 30);
        assertThat(options.replayCommand()).isEqualTo("bin/tarn chaos --duration 1500ms --seed 42 --datanodes 3 "
                + "--clients 2 --faults kill,isolate --replication 1 --max-faulty 2 --value-size 4096 "
                + "--datanode-memory 1g");
        assertThat(ChaosCommand.parseDuration(ChaosOptions.formatDuration(1_500))).isEqualTo(1_500);
    }
}
