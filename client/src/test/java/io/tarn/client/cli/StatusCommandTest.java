package io.tarn.client.cli;

import io.tarn.client.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;

/** tarn status against a MiniCluster and against nothing. */
class StatusCommandTest {
    @Test
    void printsTheClusterAndEachDatanode() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(2).start()) {
            Cli.Result r = Cli.against(cluster, "status");
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.out()).contains("files").contains("directories").contains("operations")
                    .contains("datanodes: 2 (2 alive)").contains("CAPACITY").contains("FREE");
            assertThat(r.out().lines().filter(l -> l.contains("dram") && l.contains(" alive "))).hasSize(2);

            Cli.Result waited = Cli.against(cluster, "status", "--wait", "--datanodes", "2", "-q");
            assertThat(waited.exit()).isZero();
            assertThat(waited.out()).isEmpty();

            Cli.Result tooMany = Cli.against(cluster, "status", "--wait", "--datanodes", "3", "--timeout", "0.5");
            assertThat(tooMany.exit()).isEqualTo(1);
            assertThat(tooMany.err()).contains("not ready").contains("2 of 3 datanodes alive");
        }
    }

    @Test
    void noNamenodeIsExitOneWithAReason() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Cli.Result r = Cli.run("status", "-Dtarn.namenode.address=127.0.0.1:" + port, "-Dtarn.transport=tcp",
                "-Dtarn.rpc.connect.timeout=500");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).startsWith("tarn status: ").doesNotContain("\tat ");
    }

    @Test
    void waitGivesUpAtOnceWhenAWatchedProcessIsGone() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long started = System.nanoTime();
        Cli.Result r = Cli.run("status", "--wait", "--timeout", "30", "--watch-pid", String.valueOf(p.pid()),
                "-Dtarn.namenode.address=127.0.0.1:1", "-Dtarn.transport=tcp");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("process " + p.pid() + " exited");
        assertThat(System.nanoTime() - started).isLessThan(10_000_000_000L);
    }
}
