package io.tarn.tools;

import io.tarn.minicluster.MiniCluster;
import io.tarn.common.protocol.ShortCircuitProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/** Every iobench type with tiny sizes against a MiniCluster; checks the reported counts and figures. */
class IoBenchTest extends WithCluster {
    private static final int SIZE = 64 * 1024;
    private static final int OPS = 16;
    private static final Pattern FIELD = Pattern.compile("\"([a-z_0-9]+)\":(\"[^\"]*\"|[-0-9.]+)");


    private static Cli.Result bench(String... args) {
        List<String> all = new ArrayList<>(List.of("iobench"));
        all.addAll(Arrays.asList(args));
        return Cli.against(cluster, all.toArray(new String[0]));
    }

    /** Runs iobench --json and returns the fields of each printed experiment. */
    private static List<Map<String, String>> json(String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.add("--json");
        Cli.Result r = bench(all.toArray(new String[0]));
        assertThat(r.exit()).as(r.toString()).isZero();
        List<Map<String, String>> experiments = new ArrayList<>();
        for (String line : r.out().split("\n")) {
            assertThat(line).startsWith("{").endsWith("}");
            Map<String, String> fields = new HashMap<>();
            Matcher m = FIELD.matcher(line);
            while (m.find()) {
                fields.put(m.group(1), m.group(2).replace("\"", ""));
            }
            experiments.add(fields);
        }
        return experiments;
    }

    private static Map<String, String> single(String... args) {
        List<Map<String, String>> e = json(args);
        assertThat(e).hasSize(1);
        return e.get(0);
    }

    private static void assertSane(Map<String, String> r, String type, long ops, long bytes) {
        assertThat(r.get("type")).isEqualTo(type);
        assertThat(Long.parseLong(r.get("ops"))).isEqualTo(ops);
        assertThat(Long.parseLong(r.get("bytes"))).isEqualTo(bytes);
        double seconds = Double.parseDouble(r.get("seconds"));
        assertThat(seconds).isPositive();
        assertThat(Double.parseDouble(r.get("ops_per_sec"))).isCloseTo(ops / seconds,
                org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(Double.parseDouble(r.get("mb_per_sec"))).isCloseTo(bytes / seconds / 1e6,
                org.assertj.core.data.Offset.offset(0.01 + bytes / seconds / 1e8));
        double p50 = Double.parseDouble(r.get("p50_us"));
        double p99 = Double.parseDouble(r.get("p99_us"));
        double p999 = Double.parseDouble(r.get("p999_us"));
        assertThat(p50).isPositive();
        assertThat(p99).isGreaterThanOrEqualTo(p50);
        assertThat(p999).isGreaterThanOrEqualTo(p99);
        assertThat(r).containsKeys("gbit_per_sec", "size", "inflight", "warmup", "path", "experiment");
    }

    @Test
    void writeThenReadTheSameFileEveryWay() throws Exception {
        String f = "/bench/data";
        long bytes = (long) OPS * SIZE;
        assertSane(single("-t", "write", "-f", f, "-s", "64k", "-k", "16"), "write", OPS, bytes);
        assertThat(client.getStatus(f).size()).isEqualTo(bytes);
        assertSane(single("-t", "readSequential", "-f", f, "-s", "64k", "-k", "16"), "readSequential", OPS, bytes);
        assertSane(single("-t", "readSequentialAsync", "-f", f, "-s", "64k", "-k", "16", "-b", "4"),
                "readSequentialAsync", OPS, bytes);
        assertSane(single("-t", "readRandom", "-f", f, "-s", "64k", "-k", "16"), "readRandom", OPS, bytes);
        assertSane(single("-t", "writeAsync", "-f", f, "-s", "64k", "-k", "16", "-b", "4"), "writeAsync", OPS, bytes);
        assertThat(client.getStatus(f).size()).isEqualTo(bytes);
    }

    @Test
    void sequentialReadsWrapAroundAShortFile() {
        single("-t", "write", "-f", "/bench/short", "-s", "64k", "-k", "2");
        assertSane(single("-t", "readSequential", "-f", "/bench/short", "-s", "64k", "-k", "5"), "readSequential",
                5, 5L * SIZE);
    }

    @Test
    void readingAFileThatWasNeverWrittenSaysHowToWriteIt() {
        Cli.Result r = bench("-t", "readSequential", "-f", "/bench/never");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).startsWith("tarn iobench: /bench/never does not exist")
                .contains("-t write").doesNotContain("Exception");
    }

    @ParameterizedTest
    @ValueSource(strings = {"getFile", "getFileAsync", "getBlock", "getBlockAsync", "enumerateDir"})
    void metadataTypesSetUpWhatTheyNeed(String type) {
        String path = type.equals("enumerateDir") ? "/bench/dir-" + type : "/bench/meta-" + type;
        Map<String, String> r = single("-t", type, "-f", path, "-s", "64k", "-k", "16", "-b", "4");
        assertSane(r, type, OPS, 0);
        assertThat(Double.parseDouble(r.get("mb_per_sec"))).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"getFile", "getFileAsync"})
    void lookupsCycleThroughSeveralFilesWithFiles(String type) throws Exception {
        String path = "/bench/many-" + type;
        assertSane(single("-t", type, "-f", path, "--files", "5", "-k", "16", "-b", "4"), type, OPS, 0);
        for (int i = 0; i < 5; i++) {
            assertThat(client.getStatus(path + "-" + i).isFile()).isTrue();
        }
        assertThat(client.exists(path)).as("-f itself is not used with several files").isFalse();
        assertThat(bench("-t", type, "--files", "0").exit()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"createFile", "createFileAsync"})
    void createTypesCleanUpUnlessKept(String type) throws Exception {
        String dir = "/bench/" + type;
        assertSane(single("-t", type, "-f", dir, "-k", "16", "-b", "4"), type, OPS, 0);
        assertThat(client.exists(dir)).isFalse();
        single("-t", type, "-f", dir, "-k", "16", "-b", "4", "--keep");
        assertThat(client.list(dir)).hasSize(1);
        assertThat(client.list(dir + "/" + client.list(dir).get(0).name())).hasSize(OPS);
    }

    @Test
    void experimentsRepeatAndWarmUpIsNotCounted() {
        List<Map<String, String>> e = json("-t", "getFile", "-f", "/bench/exp", "-k", "10", "-w", "7", "-e", "3");
        assertThat(e).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(e.get(i).get("experiment")).isEqualTo(String.valueOf(i + 1));
            assertThat(e.get(i).get("ops")).isEqualTo("10");
            assertThat(e.get(i).get("warmup")).isEqualTo("7");
        }
    }

    @Test
    void dataTypesSayWhichPathTheBytesTook() {
        assumeThat(ShortCircuitProtocol.bootId()).as("this host has a boot id").isNotEmpty();
        Map<String, String> local = single("-t", "write", "-f", "/bench/path", "-s", "64k", "-k", "16");
        assertThat(Long.parseLong(local.get("short_circuit_bytes"))).isEqualTo((long) OPS * SIZE);
        Map<String, String> tcp = single("-t", "readSequential", "-f", "/bench/path", "-s", "64k", "-k", "16",
                "-D", "tarn.client.shortcircuit=off");
        assertThat(tcp.get("short_circuit_bytes")).isEqualTo("0");
        assertThat(bench("-t", "readSequential", "-f", "/bench/path", "-s", "64k", "-k", "4").out())
                .contains("ops/s, short-circuit;");
        assertThat(bench("-t", "write", "-f", "/bench/path", "-s", "64k", "-k", "4", "-D",
                "tarn.client.shortcircuit=off").out()).contains("ops/s, TCP;");
    }

    @Test
    void textOutputShowsThroughputAndPercentiles() {
        Cli.Result data = bench("-t", "write", "-f", "/bench/text", "-s", "64k", "-k", "4");
        assertThat(data.exit()).isZero();
        assertThat(data.out()).startsWith("write: 4 ops 262144 bytes in ").contains("MB/s").contains("Gbit/s")
                .contains("p50").contains("p99.9");
        Cli.Result meta = bench("-t", "getFile", "-f", "/bench/text", "-k", "4");
        assertThat(meta.out()).startsWith("getFile: 4 ops in ").contains("ops/s").doesNotContain("MB/s");
    }

    @Test
    void badArgumentsAreUsageErrors() {
        Cli.Result type = bench("-t", "nonsense");
        assertThat(type.exit()).isEqualTo(2);
        assertThat(type.err()).contains("nonsense").contains("getFileAsync");
        assertThat(bench("-t", "write", "-s", "12q").exit()).isEqualTo(2);
        assertThat(bench("-t", "write", "-k", "0").exit()).isEqualTo(2);
        assertThat(bench("-f", "/x").exit()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "-s 2g|-s must be between 1 and 2147483639 bytes (2g - 9, the largest buffer Java allocates), "
                + "got 2147483648 (2g)",
        "-s 2147483640|-s must be between 1 and 2147483639 bytes (2g - 9, the largest buffer Java allocates), "
                + "got 2147483640",
        "-s 0|-s must be between 1 and 2147483639 bytes (2g - 9, the largest buffer Java allocates), got 0",
        "-k 0|-k must be at least 1, got 0",
        "-b 0|-b must be between 1 and 65536, got 0",
        "-b 65537|-b must be between 1 and 65536, got 65537",
        "-w -1|-w must not be negative, got -1",
        "-e 0|-e must be at least 1, got 0",
        "--files 1000001|--files must be between 1 and 1000000, got 1000001"})
    void aValueOutOfRangeIsAUsageErrorNamingTheFlagAndItsRange(String flagAndMessage) {
        String[] parts = flagAndMessage.split("\\|");
        String[] flag = parts[0].split(" ");
        Cli.Result r = bench("-t", "getFile", "-f", "/bench/range", flag[0], flag[1]);
        assertThat(r.exit()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).startsWith(parts[1] + "\n");
    }
}
