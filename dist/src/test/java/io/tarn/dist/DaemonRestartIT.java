package io.tarn.dist;

import io.tarn.dist.LocalCluster.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One daemon of a running local cluster restarted by {@code bin/tarn} with real processes, as an
 * operator does with {@code hdfs --daemon start datanode}: {@code tarn start} starts only the daemons
 * that are not running, {@code tarn stop/start datanode I} and {@code namenode I} one of them, and a
 * datanode comes back on its memory directory and port, so the block group it hosted is hosted again.
 */
class DaemonRestartIT {
    /** How long a datanode restart may take to make its group whole again. */
    private static final long WAIT_MS = 30_000;

    @TempDir
    Path journals;

    /** Three datanodes, files of replication 3 by default, dead after 1 s of silence. */
    private LocalCluster start(Map<String, String> extra) throws IOException {
        Map<String, String> keys = new HashMap<>(Map.of("tarn.replication.default", "3",
                "tarn.namenode.datanode.timeout", "1000", "tarn.replication.journal.dir", journals.toString()));
        keys.putAll(extra);
        return LocalCluster.start(LocalCluster.home(), 3, keys);
    }

    private static long pid(LocalCluster c, String daemon) throws IOException {
        return Long.parseLong(Files.readString(c.runDir().resolve(daemon + ".pid")).trim());
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Polls {@code tarn status --interval 0} until its output satisfies {@code condition}. */
    private static String awaitStatus(LocalCluster c, String what, Predicate<String> condition) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        String last;
        do {
            last = c.tarn("status", "--interval", "0").output();
            if (condition.test(last)) {
                return last;
            }
            Thread.sleep(200);
        } while (System.currentTimeMillis() < deadline);
        throw new AssertionError("not within " + WAIT_MS + " ms: " + what + "; last status:\n" + last);
    }

    private static void write(LocalCluster c, String path) throws IOException {
        Outcome write = c.tarn("iobench", "-t", "write", "-f", path, "-s", "256k", "-k", "4");
        assertThat(write.exit()).as(write.output()).isZero();
    }

    @Test
    void aKilledDatanodeIsStartedAloneOnItsPortAndHostsItsGroupAgain() throws Exception {
        try (LocalCluster c = start(Map.of())) {
            write(c, "/r/file");
            assertThat(c.tarn("status", "--interval", "0").output())
                    .contains("replication: 1 block group (files of replication 3), 0 under-replicated");
            long namenode = pid(c, "namenode-0");
            long first = pid(c, "datanode-0");
            long victim = pid(c, "datanode-1");
            long third = pid(c, "datanode-2");
            String address = Files.readString(c.runDir().resolve("datanode-1.port")).trim();

            ProcessHandle.of(victim).orElseThrow().destroyForcibly(); // SIGKILL: no goodbye, memory kept
            assertThat(ProcessHandle.of(victim).map(p -> p.onExit().join()).isPresent()).isTrue();
            String down = awaitStatus(c, "the group is under-replicated", s -> s.contains("1 under-replicated"));
            assertThat(down).containsPattern("datanode-1 +pid " + victim + " +not running")
                    .containsPattern("datanode \\d+ \\(" + address.replace(".", "\\.") + "\\) silent, last heard");

            Outcome restart = c.tarn("start");
            assertThat(restart.exit()).as(restart.output()).isZero();
            assertThat(restart.output()).contains("tarn: already running: namenode-0 (pid " + namenode
                    + "), datanode-0 (pid " + first + "), datanode-2 (pid " + third + ")\n")
                    .contains("tarn: starting datanode-1\n").contains("datanodes: 3 (3 alive)");
            long restarted = pid(c, "datanode-1");
            assertThat(restarted).isNotEqualTo(victim);
            assertThat(alive(restarted) && alive(namenode) && alive(first) && alive(third)).isTrue();
            assertThat(Files.readString(c.runDir().resolve("datanode-1.port")).trim()).as("the same port")
                    .isEqualTo(address);
            String log = Files.readString(c.runDir().resolve("logs").resolve("datanode-1.log"));
            assertThat(log).containsPattern("Hosting block group \\d+ again from its journal");
            assertThat(c.runDir().resolve("logs").resolve("datanode-1.log.1")).as("the killed run's log")
                    .isRegularFile();

            String whole = awaitStatus(c, "the group is whole again", s -> s.contains("0 under-replicated"));
            assertThat(whole).contains("datanodes: 3 (3 alive)").containsPattern("datanode-1 +pid " + restarted
                    + " +running");
            Outcome read = c.tarn("iobench", "-t", "readSequential", "-f", "/r/file", "-s", "256k", "-k", "4");
            assertThat(read.exit()).as(read.output()).isZero();

            Outcome again = c.tarn("start");
            assertThat(again.exit()).as(again.output()).isZero();
            assertThat(again.output()).contains("every daemon of the cluster from").contains("is running");
        }
    }

    @Test
    void oneDaemonIsStoppedAndStartedWhileTheOthersRunOn() throws Exception {
        try (LocalCluster c = start(Map.of("tarn.datanode.dram.keep", "true"))) {
            write(c, "/r/kept");
            long others = pid(c, "datanode-0");
            String address = Files.readString(c.runDir().resolve("datanode-2.port")).trim();

            Outcome stop = c.tarn("stop", "datanode", "2");
            assertThat(stop.exit()).as(stop.output()).isZero();
            assertThat(stop.output()).contains("tarn: stopped datanode-2");
            assertThat(alive(others)).isTrue();
            String stopped = c.tarn("status", "--interval", "0").output();
            assertThat(stopped).containsPattern("datanode-2 +stopped \\(tarn start starts it again\\)")
                    .contains("datanodes: 3 (2 alive)").contains("1 under-replicated")
                    .containsPattern("\\(" + address.replace(".", "\\.") + "\\) stopped [0-9.]+ s ago");
            Outcome notRunning = c.tarn("stop", "datanode", "2");
            assertThat(notRunning.exit()).isZero();
            assertThat(notRunning.output()).contains("datanode-2 is not running");

            Outcome running = c.tarn("start", "datanode", "0");
            assertThat(running.exit()).isEqualTo(1);
            assertThat(running.output()).contains("datanode-0 is already running (pid " + others + ")");
            Outcome unknown = c.tarn("start", "datanode", "5");
            assertThat(unknown.exit()).isEqualTo(1);
            assertThat(unknown.output()).contains("has no datanode 5");
            Outcome bad = c.tarn("start", "datanode", "x");
            assertThat(bad.exit()).isEqualTo(2);
            assertThat(bad.output()).contains("tarn start: datanode expects an index from 0 to 63, got 'x'");
            Outcome options = c.tarn("start", "-d", "3");
            assertThat(options.exit()).isEqualTo(1);
            assertThat(options.output()).contains("already running").contains("without options");

            Outcome start = c.tarn("start", "datanode", "2");
            assertThat(start.exit()).as(start.output()).isZero();
            assertThat(start.output()).contains("tarn: started datanode-2").contains("datanodes: 3 (3 alive)");
            assertThat(Files.readString(c.runDir().resolve("datanode-2.port")).trim()).isEqualTo(address);
            awaitStatus(c, "the kept memory makes the group whole", s -> s.contains("0 under-replicated"));

            long namenode = pid(c, "namenode-0");
            assertThat(c.tarn("stop", "namenode", "0").exit()).isZero();
            assertThat(ProcessHandle.of(namenode).map(p -> p.onExit().orTimeout(10, TimeUnit.SECONDS).join()
                    .isAlive()).orElse(false)).isFalse();
            Outcome namenodeBack = c.tarn("start", "namenode", "0");
            assertThat(namenodeBack.exit()).as(namenodeBack.output()).isZero();
            assertThat(namenodeBack.output()).contains("datanodes: 3 (3 alive)");
            assertThat(alive(others)).as("the datanodes ran on").isTrue();
        }
    }
}
