package io.tarn.tools;

import io.tarn.client.TarnClient;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** tarn status against one namenode, several, some of them stopped, and none. */
class StatusCommandTest {
    /** A namenode line: partition, address, uptime, files, directories, operations, ops/s. */
    private static final Pattern NAMENODE_LINE = Pattern.compile(
            "^  (\\d+|total) +(\\S*) +(\\d[^ ]*(?: \\S+)?)? +(\\d+) +(\\d+) +(\\d+) +(\\d+\\.\\d|-)$",
            Pattern.MULTILINE);

    @Test
    void printsTheNamenodeAndEachDatanode() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(2).start()) {
            Cli.Result r = Cli.against(cluster, "status", "--interval", "0.2");
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.out()).contains("namenodes: 1 (1 up), block size 1m; OPS/S over the last 0.2 s")
                    .contains("PART", "ADDRESS", "UPTIME", "FILES", "DIRECTORIES", "OPERATIONS", "OPS/S")
                    .contains("datanodes: 2 (2 alive)\n").contains("CAPACITY").contains("FREE")
                    .doesNotContain("total").doesNotContain("SHARE");
            List<String[]> rows = namenodeRows(r.out());
            assertThat(rows).hasSize(1);
            assertThat(rows.get(0)[0]).isEqualTo("0");
            assertThat(rows.get(0)[1]).isEqualTo("127.0.0.1:" + cluster.namenodeAddress().getPort());
            // Two datanodes heartbeat every 200 ms: the namenode serves operations between the samples.
            assertThat(Double.parseDouble(rows.get(0)[6])).isPositive();
            assertThat(r.out().lines().filter(l -> l.contains("dram") && l.contains(" alive "))).hasSize(2);
            assertThat(r.out().lines()).noneMatch(l -> l.endsWith(" "));

            Cli.Result averaged = Cli.against(cluster, "status", "--interval", "0");
            assertThat(averaged.out()).contains("OPS/S averaged since each namenode started");

            Cli.Result waited = Cli.against(cluster, "status", "--wait", "--datanodes", "2", "-q");
            assertThat(waited.exit()).isZero();
            assertThat(waited.out()).isEmpty();

            Cli.Result tooMany = Cli.against(cluster, "status", "--wait", "--datanodes", "3", "--timeout", "0.5");
            assertThat(tooMany.exit()).isEqualTo(1);
            assertThat(tooMany.err()).contains("not ready").contains("namenode 0 (127.0.0.1:")
                    .contains("sees 2 of 3 datanodes alive");
        }
    }

    @Test
    void oneLinePerNamenodeWithTotalsAndEachNamenodesShareOfTheDatanodes() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().namenodes(2).datanodes(1).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/spread");
            for (int i = 0; i < 40; i++) {
                client.create("/spread/f" + i).close();
            }
            Cli.Result r = Cli.against(cluster, "status", "--interval", "0.2");
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.out()).contains("namenodes: 2 (2 up), block size 1m; OPS/S over the last 0.2 s")
                    .contains("datanodes: 1 (1 alive), as namenode 0 sees them")
                    .contains("SHARE PER NAMENODE");
            List<String[]> rows = namenodeRows(r.out());
            assertThat(rows).extracting(row -> row[0]).containsExactly("0", "1", "total");
            assertThat(rows.get(0)[1]).isEqualTo(address(cluster, 0));
            assertThat(rows.get(1)[1]).isEqualTo(address(cluster, 1));
            long files0 = Long.parseLong(rows.get(0)[3]);
            long files1 = Long.parseLong(rows.get(1)[3]);
            assertThat(files0).isPositive();
            assertThat(files1).isPositive();
            assertThat(files0 + files1).isEqualTo(40);
            assertThat(rows.get(2)[3]).isEqualTo("40");
            // Every namenode holds every directory: the total is not their sum.
            assertThat(rows.get(0)[4]).isEqualTo(rows.get(1)[4]).isEqualTo(rows.get(2)[4]);
            assertThat(Long.parseLong(rows.get(2)[5]))
                    .isEqualTo(Long.parseLong(rows.get(0)[5]) + Long.parseLong(rows.get(1)[5]));
            // 64 MiB in 16 MiB regions: two for each namenode.
            String datanode = r.out().lines().filter(l -> l.contains("dram")).findFirst().orElseThrow();
            assertThat(datanode).contains(" alive ").contains(" 64 M ").endsWith("32 M, 32 M");

            Cli.Result waited = Cli.against(cluster, "status", "--wait", "--datanodes", "1", "-q");
            assertThat(waited.exit()).as(waited.toString()).isZero();
        }
    }

    @Test
    void aStoppedNamenodeShowsAsDownAndTheOthersAreStillReported() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().namenodes(3).datanodes(1).start()) {
            String list = cluster.config().get(TarnKeys.NAMENODE_ADDRESS);
            cluster.namenode(1).close();
            Cli.Result r = Cli.against(cluster, "status", "--interval", "0");
            assertThat(r.exit()).as(r.toString()).isEqualTo(1);
            assertThat(r.out()).contains("namenodes: 3 (2 up, 1 down)")
                    .containsPattern("(?m)^  1 +" + Pattern.quote(address(cluster, 1)) + " +down: .*"
                            + Pattern.quote(address(cluster, 1)))
                    .contains("datanodes: 1 (1 alive), as namenode 0 sees them");
            assertThat(namenodeRows(r.out())).extracting(row -> row[0]).containsExactly("0", "2", "total");
            assertThat(r.out().lines().filter(l -> l.contains("dram")).findFirst().orElseThrow())
                    .endsWith(", down, 16 M");
            assertThat(r.err()).isEqualTo("tarn status: no answer from namenode 1 (" + address(cluster, 1) + ")\n");

            Cli.Result waited = Cli.against(cluster, "status", "--wait", "--timeout", "0.3");
            assertThat(waited.exit()).isEqualTo(1);
            assertThat(waited.err()).contains("not ready").contains("namenode 1 (" + address(cluster, 1) + ")");

            // Partition 0 down too: the map comes from the next configured namenode that answers.
            cluster.namenode(0).close();
            Cli.Result r2 = Cli.run("status", "--interval", "0", "-D", "tarn.namenode.address=" + list,
                    "-Dtarn.transport=tcp", "-Dtarn.rpc.io.threads=1");
            assertThat(r2.exit()).as(r2.toString()).isEqualTo(1);
            assertThat(r2.out()).contains("namenodes: 3 (1 up, 2 down)")
                    .contains("datanodes: 1 (1 alive), as namenode 2 sees them");
            assertThat(namenodeRows(r2.out())).extracting(row -> row[0]).containsExactly("2", "total");
            assertThat(r2.err()).contains("no answer from namenode 0 (" + address(cluster, 0) + "), namenode 1 (");

            assertThat(Cli.against(cluster, "status", "-q").exit()).isEqualTo(1);
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
        assertThat(r.out()).contains("namenodes: 1 (0 up, 1 down)").contains("0     127.0.0.1:" + port + " ")
                .contains("down: ").contains("datanodes: unknown (no namenode answered)");
        assertThat(r.err()).startsWith("tarn status: no answer from namenode 0 (127.0.0.1:" + port + ")")
                .doesNotContain("\tat ");
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

    /** The namenode lines of the output (and the total line), as their 7 fields. */
    private static List<String[]> namenodeRows(String out) {
        Matcher m = NAMENODE_LINE.matcher(out);
        List<String[]> rows = new ArrayList<>();
        while (m.find()) {
            String[] row = new String[7];
            for (int i = 0; i < 7; i++) {
                row[i] = m.group(i + 1) == null ? "" : m.group(i + 1);
            }
            rows.add(row);
        }
        return rows;
    }

    private static String address(MiniCluster cluster, int partition) {
        return "127.0.0.1:" + cluster.namenode(partition).address().getPort();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--interval|1e9|--interval must be between 0 and 3600 seconds, got 1000000000",
        "--interval|3600.5|--interval must be between 0 and 3600 seconds, got 3600.5",
        "--interval|-1|--interval must be between 0 and 3600 seconds, got -1",
        "--interval|NaN|--interval must be between 0 and 3600 seconds, got NaN",
        "--interval|Infinity|--interval must be between 0 and 3600 seconds, got Infinity",
        "--timeout|86401|--timeout must be between 0 and 86400 seconds, got 86401",
        "--datanodes|-1|--datanodes must not be negative, got -1"})
    void aValueOutOfRangeIsAUsageErrorBeforeAnythingWaits(String option, String value, String message) {
        long started = System.nanoTime();
        Cli.Result r = Cli.run("status", option, value, "-D", "tarn.namenode.address=127.0.0.1:1");
        assertThat(r.exit()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).startsWith(message + "\n");
        assertThat(System.nanoTime() - started).as("no namenode was asked").isLessThan(5_000_000_000L);
    }
}
