package io.tarn.hadoop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives bin/tarn start/status/fs/iobench/stop as a user would, with its own run directory,
 * configuration directory, loopback ports and memory directory, so that it neither disturbs nor
 * depends on a cluster a developer runs on the default ports. It lives in the module built last
 * among those bin/tarn runs from (client/target for the daemons, hdfs-adapter/target for tarn fs),
 * and runs after package (failsafe), when both exist.
 */
class BinTarnIT {
    private static final Path TARN = Path.of("..", "bin", "tarn").toAbsolutePath().normalize();

    @TempDir
    Path tmp;
    private Path conf;
    private Path run;

    /** Exit code and combined output of one bin/tarn invocation. */
    private record Outcome(int exit, String output) {
    }

    @BeforeEach
    void configure() throws IOException {
        assertThat(Path.of("..", "client", "target", "lib")).as("bin/tarn runs from the packaged build").isDirectory();
        assertThat(Path.of("target", "hadoop-lib")).as("tarn fs runs from the packaged build").isDirectory();
        conf = Files.createDirectories(tmp.resolve("conf"));
        run = tmp.resolve("run");
        writeConf(freePort());
        Files.copy(Path.of("..", "conf", "logback.xml"), conf.resolve("logback.xml"));
    }

    private void writeConf(int namenodePort) throws IOException {
        Files.writeString(conf.resolve("tarn-site.conf"), String.join("\n",
                "tarn.namenode.address 127.0.0.1:" + namenodePort,
                "tarn.transport tcp",
                "tarn.rpc.io.threads 1",
                "tarn.datanode.bind 127.0.0.1:0",
                "tarn.datanode.hostname 127.0.0.1",
                "tarn.datanode.heartbeat.interval 200",
                "tarn.datanode.dram.capacity 64m",
                "tarn.datanode.dram.region.size 16m",
                "tarn.datanode.dram.path " + tmp.resolve("dram"), ""));
    }

    @AfterEach
    void stopWhateverIsLeft() throws Exception {
        if (run != null && Files.isDirectory(run)) {
            tarn("stop");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Outcome tarn(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", TARN.toString()));
        command.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("TARN_CONF_DIR", conf.toString());
        pb.environment().put("TARN_RUN_DIR", run.toString());
        pb.environment().put("TARN_HEAP", "256m");
        pb.environment().put("TARN_START_TIMEOUT", "45");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
        return new Outcome(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private long pid(String daemon) throws IOException {
        return Long.parseLong(Files.readString(run.resolve(daemon + ".pid")).trim());
    }

    @Test
    void startStatusUseAndStopALocalCluster() throws Exception {
        Outcome start = tarn("start", "-d", "2");
        assertThat(start.exit()).as(start.output()).isZero();
        assertThat(start.output()).contains("cluster is up").contains("datanodes: 2 (2 alive)");
        List<ProcessHandle> daemons = new ArrayList<>();
        for (String d : List.of("namenode", "datanode-0", "datanode-1")) {
            daemons.add(ProcessHandle.of(pid(d)).orElseThrow());
        }

        Outcome again = tarn("start");
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.output()).contains("already running");

        Outcome status = tarn("status");
        assertThat(status.exit()).as(status.output()).isZero();
        assertThat(status.output()).containsPattern("namenode +pid " + pid("namenode") + " +running")
                .containsPattern("datanode-1 +pid \\d+ +running").contains("datanodes: 2 (2 alive)");

        Outcome mkdir = tarn("fs", "-mkdir", "-p", "/it/dir");
        assertThat(mkdir.exit()).as(mkdir.output()).isZero();
        Path local = Files.writeString(tmp.resolve("hello.txt"), "hello, tarn\n");
        assertThat(tarn("fs", "-put", local.toString(), "/it/dir/").exit()).isZero();
        Outcome cat = tarn("fs", "--config", conf.resolve("tarn-site.conf").toString(), "-cat", "/it/dir/hello.txt");
        assertThat(cat.output()).isEqualTo("hello, tarn\n");
        Outcome badKey = tarn("fs", "-D", "tarn.client.readahed=1m", "-ls", "/");
        assertThat(badKey.exit()).isEqualTo(2);
        assertThat(badKey.output()).contains("did you mean 'tarn.client.readahead'");
        Outcome bench = tarn("iobench", "-t", "write", "-f", "/it/file", "-s", "64k", "-k", "16", "--json");
        assertThat(bench.exit()).as(bench.output()).isZero();
        assertThat(bench.output()).contains("\"type\":\"write\"").contains("\"bytes\":1048576");
        Outcome ls = tarn("fs", "-ls", "/it");
        assertThat(ls.output()).contains("Found 2 items").contains("/it/dir").containsPattern(" 1048576 \\S+ \\S+ /it/file");

        Outcome stop = tarn("stop");
        assertThat(stop.exit()).as(stop.output()).isZero();
        assertThat(stop.output()).contains("stopped namenode").contains("stopped datanode-0");
        for (ProcessHandle d : daemons) {
            // The script saw it exit; the reaper (init here) may take a moment to collect the zombie.
            assertThat(d.onExit().get(10, TimeUnit.SECONDS).isAlive()).as("pid %d", d.pid()).isFalse();
        }
        assertThat(Files.readString(run.resolve("logs").resolve("namenode.log"))).contains("stopping namenode");

        Outcome after = tarn("status");
        assertThat(after.exit()).isEqualTo(1);
        assertThat(after.output()).contains("none started");
    }

    @Test
    void startFailsClearlyWhenTheNamenodeCannotBind() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            writeConf(taken.getLocalPort());
            long started = System.nanoTime();
            Outcome start = tarn("start");
            assertThat(start.exit()).as(start.output()).isEqualTo(1);
            assertThat(start.output()).contains("did not come up").contains("namenode (pid")
                    .contains("exited").contains("last lines of");
            assertThat(System.nanoTime() - started).isLessThan(40_000_000_000L);
        }
        assertThat(tarn("status").output()).contains("none started");
    }
}
