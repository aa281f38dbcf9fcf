package io.tarn.chaos;

import io.tarn.dist.LocalCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/tarn chaos} of the distribution, as a user runs it: a namenode and five DRAM datanodes
 * as separate JVMs in network namespaces, four clients, 15 s of kill -9 and restart, SIGSTOP and
 * SIGCONT, clean restarts and partitions. With one copy per block none of these may lose an
 * acknowledged write (a DRAM datanode's memory files outlive its kill -9), and the history must be
 * linearizable. Seed 9 draws all four faults within the first 9 s.
 */
class ChaosCommandIT {
    @BeforeAll
    static void needsNamespaces() {
        Namespaces.assumeAvailable();
    }

    @Test
    void shortRunWithEveryLosslessFaultPasses(@TempDir Path dir) throws IOException {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Path run = Files.createDirectories(dir.resolve("run"));
        LocalCluster.Outcome outcome = LocalCluster.run(LocalCluster.home(), conf, run, "chaos", "--duration", "15s",
                "--seed", "9", "--datanodes", "5", "--clients", "4", "--faults", "kill,pause,isolate,restart");
        String out = outcome.output();
        assertThat(out).as(out).contains("verdict: PASS");
        assertThat(outcome.exit()).as(out).isZero();
        assertThat(out).contains("linearizability: linearizable (", ", lost: 0",
                "replicas: not checked: replication 1");
        assertThat(out).containsPattern("faults injected: \\{.*isolate=\\d.*kill=\\d.*pause=\\d.*restart=\\d");
        assertThat(out).containsPattern("write ok=[1-9]\\d{2,}").containsPattern("read ok=[1-9]\\d{2,}");
        // Nothing of the run is left: namespaces, links, memory files.
        assertThat(ip("netns", "list")).doesNotContain("tarnchaos-");
        assertThat(ip("-o", "link", "show")).doesNotContain("tarn-chaos");
        try (var shm = Files.list(Path.of("/dev/shm"))) {
            assertThat(shm.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("tarn-chaos-"));
        }
    }

    /**
     * The same faults with replication 3: every file lives in block groups of three datanodes kept
     * by ParallelRaft; no acknowledged write may be lost, the history must be linearizable, and at
     * quiescence every replica of every block must hold the same bytes.
     */
    @Test
    void replicatedRunWithEveryLosslessFaultPassesWithIdenticalReplicas(@TempDir Path dir) throws IOException {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Path run = Files.createDirectories(dir.resolve("run"));
        LocalCluster.Outcome outcome = LocalCluster.run(LocalCluster.home(), conf, run, "chaos", "--duration", "15s",
                "--seed", "9", "--datanodes", "5", "--clients", "4", "--faults", "kill,pause,isolate,restart",
                "--replication", "3");
        String out = outcome.output();
        assertThat(out).as(out).contains("verdict: PASS");
        assertThat(outcome.exit()).as(out).isZero();
        assertThat(out).contains("replication 3", "linearizability: linearizable (", ", lost: 0");
        assertThat(out).containsPattern("replicas: every replica of [1-9]\\d* replicated blocks holds the same bytes");
        assertThat(out).containsPattern("faults injected: \\{.*isolate=\\d.*kill=\\d.*pause=\\d.*restart=\\d");
        assertThat(ip("netns", "list")).doesNotContain("tarnchaos-");
    }

    static String ip(String... args) throws IOException {
        String[] command = new String[args.length + 1];
        command[0] = "ip";
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
