package io.tarn.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tarn failoverbench} with real processes: three namenodes of a group and a DRAM datanode as
 * JVMs of their own, a client creating files, the leader killed with kill -9 twice; the table has a
 * row per round and none of the client's creates failed.
 */
class FailoverBenchTest {
    @TempDir
    Path dir;

    @Test
    void killsTheLeaderEachRoundAndReportsTheFailovers() throws Exception {
        Cli.Result r = Cli.run("failoverbench", "--rounds", "2", "--dir", dir.toString(), "-Dtarn.transport=tcp");
        assertThat(r.exit()).as("%s", r).isZero();
        assertThat(r.out()).contains("| 1 | ", "| 2 | ", "| median | ", "none failed");
        assertThat(r.err()).contains("round 1: killed member", "round 2: killed member");
        assertThat(Files.readString(dir.resolve("namenode-0.log"))).contains("Namenode group of partition 0");
    }

    @Test
    void refusesNoRounds() {
        Cli.Result r = Cli.run("failoverbench", "--rounds", "0");
        assertThat(r.exit()).isEqualTo(TarnCli.EXIT_USAGE);
        assertThat(r.err()).contains("--rounds must be at least 1, got 0");
    }
}
