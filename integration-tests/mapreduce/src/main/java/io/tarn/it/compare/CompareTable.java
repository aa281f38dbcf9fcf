package io.tarn.it.compare;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The result of a run as one Markdown table: per workload Tarn's and HDFS's figure, Tarn/HDFS, and
 * where a raw transport baseline applies, its name, figure and Tarn/baseline. Latency rows say
 * "lower is better"; for them a ratio below 1 favours Tarn. The short-circuit rows compare Tarn's
 * short-circuit client with HDFS's ordinary client and, as their baseline, with Tarn's TCP path.
 */
final class CompareTable {
    static final String HEADER = "| workload | Tarn | HDFS | Tarn / HDFS "
            + "| baseline | baseline figure | Tarn / baseline |";
    static final String NETTY = "Netty echo";
    static final String PING_PONG = "socket ping-pong";
    static final String TCP = "TCP stream";
    static final String TCP_INTO_MEMORY = "TCP stream into memory";
    static final String WRITE_VS_MEMORY = "sequential write, 1 MiB calls, MB/s, vs a stream kept in memory";
    static final String TARN_TCP = "Tarn, TCP path";
    static final String SHORT_CIRCUIT_WRITE = "sequential write, short-circuit, 1 MiB calls, MB/s";
    static final String SHORT_CIRCUIT_READ = "sequential read, short-circuit, 1 MiB calls, MB/s";
    private static final double MB = 1e6;

    /** One line of the table; {@code baseline} is NaN and {@code baselineName} empty where none applies. */
    record Row(String workload, double tarn, double hdfs, String baselineName, double baseline, String format) {
    }

    private CompareTable() {
    }

    static List<Row> rows(SideResult tarn, SideResult hdfs, BaselineResult base) {
        List<Row> rows = new ArrayList<>();
        for (int depth : CompareSettings.GET_FILE_DEPTHS) {
            LoadResult t = tarn.getFile().get(depth);
            LoadResult h = hdfs.getFile().get(depth);
            LoadResult n = base.nettyEcho().get(depth);
            String name = "getFile, " + depth + " in flight";
            rows.add(new Row(name + ", ops/s", t.opsPerSecond(), h.opsPerSecond(), NETTY, n.opsPerSecond(), "%,.0f"));
            if (depth == 1) {
                rows.add(new Row(name + ", p50 µs (lower is better)", t.p50Micros(), h.p50Micros(),
                        PING_PONG, base.socketPingPong().p50Micros(), "%,.1f"));
            } else {
                rows.add(new Row(name + ", p50 µs (lower is better)", t.p50Micros(), h.p50Micros(),
                        NETTY, n.p50Micros(), "%,.1f"));
            }
            rows.add(new Row(name + ", p99 µs (lower is better)", t.p99Micros(), h.p99Micros(),
                    NETTY, n.p99Micros(), "%,.1f"));
        }
        for (int depth : CompareSettings.CREATE_DEPTHS) {
            rows.add(new Row("create + close empty file, " + depth + " in flight, ops/s",
                    tarn.createClose().get(depth).opsPerSecond(), hdfs.createClose().get(depth).opsPerSecond(),
                    "", Double.NaN, "%,.0f"));
        }
        rows.add(new Row("sequential write, 1 MiB calls, MB/s", tarn.writeBytesPerSecond() / MB,
                hdfs.writeBytesPerSecond() / MB, TCP, base.tcpBytesPerSecond() / MB, "%,.0f"));
        rows.add(new Row(WRITE_VS_MEMORY, tarn.writeBytesPerSecond() / MB, hdfs.writeBytesPerSecond() / MB,
                TCP_INTO_MEMORY, base.tcpIntoMemoryBytesPerSecond() / MB, "%,.0f"));
        rows.add(new Row("sequential read, 1 MiB calls, MB/s", tarn.readBytesPerSecond() / MB,
                hdfs.readBytesPerSecond() / MB, TCP, base.tcpBytesPerSecond() / MB, "%,.0f"));
        if (tarn.hasShortCircuit()) {
            // HDFS has no short-circuit client here: its column repeats its ordinary figure.
            rows.add(new Row(SHORT_CIRCUIT_WRITE, tarn.shortCircuitWriteBytesPerSecond() / MB,
                    hdfs.writeBytesPerSecond() / MB, TARN_TCP, tarn.writeBytesPerSecond() / MB, "%,.0f"));
            rows.add(new Row(SHORT_CIRCUIT_READ, tarn.shortCircuitReadBytesPerSecond() / MB,
                    hdfs.readBytesPerSecond() / MB, TARN_TCP, tarn.readBytesPerSecond() / MB, "%,.0f"));
        }
        return rows;
    }

    /**
     * getFile, create + close and rename on Tarn without and with its namespace journal, and on HDFS (whose
     * edit log is always on disk): the journal's cost, and Tarn journaled against HDFS.
     */
    static String durability(SideResult memory, SideResult journaled, SideResult group, SideResult hdfs) {
        StringBuilder out = new StringBuilder("| workload, ops/s | Tarn, journal none | Tarn, journal disk "
                + "| disk / none | Tarn, group of 3 | group / disk | HDFS | Tarn disk / HDFS | group / HDFS |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int depth : CompareSettings.GET_FILE_DEPTHS) {
            durabilityRow(out, "getFile, " + depth + " in flight", memory.getFile().get(depth),
                    journaled.getFile().get(depth), group.getFile().get(depth), hdfs.getFile().get(depth));
        }
        for (int depth : CompareSettings.CREATE_DEPTHS) {
            durabilityRow(out, "create + close, " + depth + " in flight", memory.createClose().get(depth),
                    journaled.createClose().get(depth), group.createClose().get(depth), hdfs.createClose().get(depth));
        }
        for (int depth : CompareSettings.CREATE_DEPTHS) {
            durabilityRow(out, "rename, " + depth + " in flight", memory.rename().get(depth),
                    journaled.rename().get(depth), group.rename().get(depth), hdfs.rename().get(depth));
        }
        return out.toString();
    }

    private static void durabilityRow(StringBuilder out, String name, LoadResult memory, LoadResult journaled,
                                      LoadResult group, LoadResult hdfs) {
        out.append("| ").append(name)
                .append(" | ").append(format("%,.0f", memory.opsPerSecond()))
                .append(" | ").append(format("%,.0f", journaled.opsPerSecond()))
                .append(" | ").append(ratio(journaled.opsPerSecond(), memory.opsPerSecond()))
                .append(" | ").append(format("%,.0f", group.opsPerSecond()))
                .append(" | ").append(ratio(group.opsPerSecond(), journaled.opsPerSecond()))
                .append(" | ").append(format("%,.0f", hdfs.opsPerSecond()))
                .append(" | ").append(ratio(journaled.opsPerSecond(), hdfs.opsPerSecond()))
                .append(" | ").append(ratio(group.opsPerSecond(), hdfs.opsPerSecond()))
                .append(" |\n");
    }

    static String markdown(List<Row> rows) {
        StringBuilder out = new StringBuilder(HEADER).append('\n');
        out.append("|---|---:|---:|---:|---|---:|---:|\n");
        for (Row r : rows) {
            boolean baseline = !Double.isNaN(r.baseline());
            out.append("| ").append(r.workload())
                    .append(" | ").append(format(r.format(), r.tarn()))
                    .append(" | ").append(format(r.format(), r.hdfs()))
                    .append(" | ").append(ratio(r.tarn(), r.hdfs()))
                    .append(" | ").append(baseline ? r.baselineName() : "none")
                    .append(" | ").append(baseline ? format(r.format(), r.baseline()) : "n/a")
                    .append(" | ").append(baseline ? ratio(r.tarn(), r.baseline()) : "n/a")
                    .append(" |\n");
        }
        return out.toString();
    }

    /** Names what each column and baseline is, for the lines under the table. */
    static String legend(SideResult tarn, SideResult hdfs, BaselineResult base) {
        List<String> lines = new ArrayList<>(List.of(
                "Tarn: " + tarn.description() + ".",
                "HDFS: " + hdfs.description() + ".",
                "Baselines, loopback, " + NettyEchoBaseline.MESSAGE_BYTES + "-byte messages each way: "
                        + NETTY + " = Netty 4.2 (" + base.nettyTransport() + ", the Tarn client's relocated copy), "
                        + "one connection, that many messages outstanding; " + PING_PONG
                        + " = blocking java.net.Socket, one in flight; " + TCP
                        + " = one connection, 1 MiB writes, the receiver reading into one 1 MiB buffer; "
                        + TCP_INTO_MEMORY + " = the same, the receiver keeping the bytes, each MiB read into the"
                        + " next MiB of a mapped file of the data's size where the datanode keeps its regions"
                        + " (/dev/shm unless --dram-root says otherwise): what storing them in memory costs before"
                        + " any file system work."
                        + " Each baseline figure is the better of a run before"
                        + " Tarn and one after HDFS. Sequential figures (both file systems and the TCP stream) are"
                        + " the median of " + CompareSettings.SEQUENTIAL_PASSES + " passes after unmeasured ones"
                        + " (none with --warmup-seconds 0): the TCP stream " + CompareSettings.SEQUENTIAL_WARMUP_PASSES
                        + ", each file system at least " + CompareSettings.SEQUENTIAL_WARMUP_PASSES + " and then more,"
                        + " up to " + CompareSettings.SEQUENTIAL_WARMUP_PASSES_MAX + ", until a pass spends less than "
                        + Math.round(CompareSettings.JIT_QUIET_SHARE * 100) + "% of its time in the JIT compiler"
                        + " (standard error logs each warm-up pass)."
                        + " MB = 10^6 bytes."));
        if (tarn.hasShortCircuit()) {
            lines.add("Short-circuit rows: Tarn's figure is a second TarnClient, tarn.client.shortcircuit=auto"
                    + " (the default), writing and reading a file of its own the same way; it copies straight from"
                    + " and to the datanode's mapped region files when the datanode grants it, else it falls back"
                    + " to TCP (the runner counts the bytes it copied directly and warns on standard error when some"
                    + " went over TCP). HDFS's figure is its"
                    + " ordinary sequential one (it has no short-circuit client here). The baseline " + TARN_TCP
                    + " is Tarn's figure in the sequential row of the same direction, so Tarn / baseline is"
                    + " short-circuit over TCP path.");
        }
        return String.join("\n", lines);
    }

    static final String SUMMARY_HEADER =
            "| workload | Tarn / HDFS, median (min–max) | baseline | Tarn / baseline, median (min–max) |";

    /**
     * Several rounds of the same comparison as one table: per workload, the median of each round's
     * Tarn / HDFS and Tarn / baseline ratios, with the smallest and largest. Ratios are taken within
     * each round, as in its own table, before the median is taken across rounds.
     */
    static String summary(List<List<Row>> rounds) {
        List<Row> first = rounds.get(0);
        List<String> workloads = first.stream().map(Row::workload).toList();
        for (List<Row> round : rounds) {
            if (!round.stream().map(Row::workload).toList().equals(workloads)) {
                throw new IllegalArgumentException("rounds measured different workloads");
            }
        }
        StringBuilder out = new StringBuilder(SUMMARY_HEADER).append('\n');
        out.append("|---|---:|---|---:|\n");
        for (int i = 0; i < first.size(); i++) {
            Row r = first.get(i);
            double[] overHdfs = new double[rounds.size()];
            double[] overBaseline = new double[rounds.size()];
            for (int k = 0; k < rounds.size(); k++) {
                Row x = rounds.get(k).get(i);
                overHdfs[k] = x.hdfs() > 0 ? x.tarn() / x.hdfs() : Double.NaN;
                overBaseline[k] = x.baseline() > 0 ? x.tarn() / x.baseline() : Double.NaN;
            }
            boolean baseline = !Double.isNaN(r.baseline());
            out.append("| ").append(r.workload())
                    .append(" | ").append(spread(overHdfs))
                    .append(" | ").append(baseline ? r.baselineName() : "none")
                    .append(" | ").append(baseline ? spread(overBaseline) : "n/a")
                    .append(" |\n");
        }
        return out.toString();
    }

    /** "median (min–max)" of {@code values}, or n/a when one is missing. */
    static String spread(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        if (v.length == 0 || Double.isNaN(v[v.length - 1])) {
            return "n/a"; // NaN sorts last
        }
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", median, v[0], v[n - 1]);
    }

    private static String format(String format, double v) {
        return String.format(Locale.ROOT, format, v);
    }

    /** Two decimals; two significant digits below 0.1, so that a small ratio never reads as 0.00. */
    static String ratio(double a, double b) {
        if (b <= 0) {
            return "n/a";
        }
        double r = a / b;
        return String.format(Locale.ROOT, r >= 0.1 || r == 0 ? "%.2f" : "%.2g", r);
    }
}
