package io.tarn.it.compare;

import io.tarn.it.ComparisonMain;
import io.tarn.it.compare.ReplicatedWriteTable.Ratio;
import io.tarn.it.compare.ReplicatedWriteTable.Series;
import io.tarn.it.compare.ReplicatedWriteTable.Workload;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Replicated writes measured side by side, in one run: Tarn (three DRAM datanodes, block groups
 * kept by ParallelRaft with their journals on disk) with replication 3 and 1, and HDFS
 * (MiniDFSCluster, three datanodes, its write pipeline) with replication 3 and 1, under two
 * workloads at several writer counts ({@link AppendLoad}): 4 KiB appends each acknowledged before
 * the next, and 1 MiB sequential writes. Baselines in the same run: one loopback TCP stream
 * ({@link TcpStreamBaseline}) and the disk's rate for writes each followed by fdatasync
 * ({@link DiskBaseline}: fio when installed, and a Java loop). {@code bin/tarn-replbench} is the
 * launcher.
 *
 * <pre>
 * ReplicatedWriteComparison [--seconds S] [--warmup-seconds S] [--rounds N] [--depths 1,4,16,32]
 *                           [--work-dir DIR] [--datanode-mb MB] [--tcp-mb MB]
 * </pre>
 *
 * Each round runs the baselines, then starts Tarn, runs every Tarn point and stops it, then the same
 * for HDFS; the work directory (journals, HDFS storage, the disk baselines' files) must be on the
 * disk to be measured, not on tmpfs. Prints the tables (median and range over the rounds) on
 * standard output, progress on standard error.
 */
public final class ReplicatedWriteComparison {
    private static final String USAGE = "usage: ReplicatedWriteComparison [--seconds S] [--warmup-seconds S]"
            + " [--rounds N] [--depths 1,4,16,32] [--work-dir DIR] [--datanode-mb MB] [--tcp-mb MB]";
    private static final Series TARN_3 = new Series("Tarn", 3, false);
    private static final Series TARN_1 = new Series("Tarn", 1, false);
    /** Replication 3 with the groups in tarn.replication.mode = in_order (plain Raft's order). */
    private static final Series TARN_3_IN_ORDER = new Series("Tarn in-order", 3, false);
    private static final Series HDFS_3 = new Series("HDFS", 3, false);
    private static final Series HDFS_3_SYNC = new Series("HDFS", 3, true);
    private static final Series HDFS_1 = new Series("HDFS", 1, false);
    private static final List<Ratio> RATIOS = List.of(new Ratio(TARN_3, HDFS_3), new Ratio(TARN_3, HDFS_3_SYNC),
            new Ratio(TARN_1, HDFS_1), new Ratio(TARN_3, TARN_1), new Ratio(TARN_3, TARN_3_IN_ORDER));
    /** Unmeasured load on a freshly started file system before its first point. */
    private static final double START_WARMUP_SECONDS = 1;

    private ReplicatedWriteComparison() {
    }

    /** What a run measures. */
    record Settings(double seconds, double warmupSeconds, int rounds, List<Integer> depths, Path workDir,
                    long datanodeMb, int tcpMb) {
        String options() {
            return String.format(Locale.ROOT, "--seconds %s --warmup-seconds %s --rounds %d --depths %s"
                            + " --datanode-mb %d --tcp-mb %d --work-dir %s", seconds, warmupSeconds, rounds,
                    depths.stream().map(String::valueOf).collect(Collectors.joining(",")), datanodeMb, tcpMb,
                    workDir);
        }
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("tarn-replbench: " + e.getMessage());
            System.exit(2);
            return;
        }
        Settings s = options.settings();
        ComparisonMain.printThenExit(s.workDir(), options.temporaryWorkDir(), () -> run(s, System.err));
    }

    /** Runs every round and returns the report's paragraphs. */
    static List<String> run(Settings s, PrintStream log) throws Exception {
        String loadBefore = loadAverage();
        long started = System.nanoTime();
        ReplicatedWriteTable table = new ReplicatedWriteTable(List.of(TARN_3, TARN_3_IN_ORDER, TARN_1, HDFS_3,
                HDFS_3_SYNC, HDFS_1));
        String tarnDescription = null;
        String hdfsDescription = null;
        for (int round = 1; round <= s.rounds(); round++) {
            log.printf(Locale.ROOT, "replbench: round %d of %d, load average %s%n", round, s.rounds(), loadAverage());
            baselines(s, table, log);
            try (TarnAppendTarget tarn = TarnAppendTarget.start(s.datanodeMb(),
                    s.workDir().resolve("tarn-journal-" + round), s.workDir().resolve("tarn-logs-" + round),
                    "parallel")) {
                tarnDescription = tarn.description();
                // Replication 1 first: a region freed by a destroyed block group was handed out for
                // unreplicated blocks while its datanode still held the group's replica, and every
                // WRITE_BLOCK there was refused (see docs/replication-benchmarks.md).
                measure(tarn, List.of(TARN_1, TARN_3), s, round, table, log);
            }
            // The same cluster with the groups acknowledging in log order, as in-order Raft does.
            try (TarnAppendTarget tarn = TarnAppendTarget.start(s.datanodeMb(),
                    s.workDir().resolve("tarn-journal-in-order-" + round),
                    s.workDir().resolve("tarn-logs-in-order-" + round), "in_order")) {
                measure(tarn, List.of(TARN_3_IN_ORDER), s, round, table, log);
            }
            try (HdfsAppendTarget hdfs = HdfsAppendTarget.start(
                    Files.createDirectories(s.workDir().resolve("minidfs-" + round)).toFile())) {
                hdfsDescription = hdfs.description();
                measure(hdfs, List.of(HDFS_3, HDFS_3_SYNC, HDFS_1), s, round, table, log);
            }
        }
        List<String> out = new ArrayList<>();
        out.add("Replicated writes, median of " + s.rounds() + " rounds (smallest–largest in brackets).");
        out.add(Workload.SMALL.title + ", writes/s:\n\n" + table.rates(Workload.SMALL, RATIOS));
        out.add(Workload.SMALL.title + ", latency of one append + flush:\n\n" + table.latencies(Workload.SMALL));
        out.add(Workload.SEQUENTIAL.title + ", MB/s:\n\n" + table.rates(Workload.SEQUENTIAL, RATIOS));
        out.add("Baselines, same rounds:\n\n" + table.baselines());
        List<String> failures = table.failureLines();
        if (!failures.isEmpty()) {
            out.add("Failed load points:\n\n" + failures.stream().map(f -> "- " + f).collect(Collectors.joining("\n")));
        }
        out.add("- Tarn: " + tarnDescription + "\n- HDFS: " + hdfsDescription
                + "\n- depth = writer threads, each with a file of its own (both clients' streams are"
                + " synchronous at hflush; for 1 MiB writes each stream keeps its own bytes in flight)");
        out.add(machine(s, loadBefore, (System.nanoTime() - started) / 1e9));
        // Markdown paragraphs: a blank line after each (the tables end with their own line break).
        return out.stream().map(p -> p.endsWith("\n") ? p : p + "\n").toList();
    }

    private static void baselines(Settings s, ReplicatedWriteTable table, PrintStream log) throws Exception {
        long tcpBytes = (long) s.tcpMb() << 20;
        double tcp = TcpStreamBaseline.run(tcpBytes, tcpBytes);
        table.baseline("TCP stream over loopback, 1 MiB writes, MB/s", tcp / 1e6);
        log.printf(Locale.ROOT, "replbench: TCP stream %.0f MB/s%n", tcp / 1e6);
        Path disk = Files.createDirectories(s.workDir().resolve("disk"));
        for (int size : new int[] {AppendLoad.SMALL, AppendLoad.LARGE}) {
            String what = size == AppendLoad.SMALL ? "4 KiB" : "1 MiB";
            Optional<DiskBaseline.Rate> fio = DiskBaseline.fio(disk, size, s.seconds());
            if (fio.isPresent()) {
                table.baseline("fio, " + what + " writes + fdatasync, writes/s", fio.get().opsPerSecond());
                table.baseline("fio, " + what + " writes + fdatasync, MB/s", fio.get().bytesPerSecond() / 1e6);
                log.printf(Locale.ROOT, "replbench: fio %s + fdatasync: %.0f writes/s%n", what,
                        fio.get().opsPerSecond());
            }
            DiskBaseline.JavaLoop java = DiskBaseline.javaLoop(disk, size, s.seconds());
            table.baseline("Java FileChannel write + force(false), " + what + ", writes/s", java.opsPerSecond());
            table.baseline("Java FileChannel write + force(false), " + what + ", MB/s", java.bytesPerSecond() / 1e6);
            table.baseline("Java FileChannel write + force(false), " + what + ", p50 µs", java.p50Micros());
            table.baseline("Java FileChannel write + force(false), " + what + ", p99 µs", java.p99Micros());
            log.printf(Locale.ROOT, "replbench: Java write + force %s: %.0f writes/s, p50 %.0f µs%n", what,
                    java.opsPerSecond(), java.p50Micros());
        }
    }

    /** Every point of {@code series} on one started file system. */
    private static void measure(AppendTarget target, List<Series> series, Settings s, int round,
                                ReplicatedWriteTable table, PrintStream log) throws InterruptedException {
        Set<Integer> warm = new HashSet<>();
        for (Series each : series) {
            if (warm.add(each.replication())) {
                warmUp(target, each, log);
            }
            for (Workload w : Workload.values()) {
                if (each.sync() && w == Workload.SEQUENTIAL) {
                    continue; // hsync only where the small writes compare durable acknowledgments
                }
                for (int depth : s.depths()) {
                    String dir = "/replbench/" + round + "/" + each.label().replace(' ', '-') + "-"
                            + w.name().toLowerCase(Locale.ROOT) + "-" + depth;
                    try {
                        AppendLoad.Figures f = w == Workload.SMALL
                                ? AppendLoad.smallWrites(target, dir, each.replication(), each.sync(), depth,
                                s.warmupSeconds(), s.seconds())
                                : AppendLoad.sequential(target, dir, each.replication(), depth, s.warmupSeconds(),
                                s.seconds());
                        table.record(each, w, depth, round, f);
                        log.printf(Locale.ROOT, "replbench: round %d %s %s depth %d: %.0f writes/s, %.1f MB/s,"
                                        + " p50 %.0f µs, p99 %.0f µs%n", round, each.label(), w, depth,
                                f.opsPerSecond(), f.mbPerSecond(), f.p50Micros(), f.p99Micros());
                    } catch (IOException | RuntimeException e) {
                        table.failed(each, w, depth, "round " + round + ": " + e);
                        log.printf(Locale.ROOT, "replbench: round %d %s %s depth %d FAILED: %s%n", round,
                                each.label(), w, depth, e);
                    }
                }
            }
        }
    }

    /**
     * Unmeasured load on {@code series}' replication before its first point: the JIT, the
     * connections, and on Tarn the first block groups.
     */
    private static void warmUp(AppendTarget target, Series series, PrintStream log) throws InterruptedException {
        int r = series.replication();
        try {
            AppendLoad.smallWrites(target, "/warmup-small-r" + r, r, false, 4, 0, START_WARMUP_SECONDS);
            AppendLoad.sequential(target, "/warmup-seq-r" + r, r, 4, 0, START_WARMUP_SECONDS);
        } catch (IOException e) {
            log.println("replbench: warm-up of " + series.label() + " failed: " + e);
        }
    }

    /** The machine, the disk under the work directory, the load and the options, for the record. */
    private static String machine(Settings s, String loadBefore, double seconds) throws IOException {
        FileStore store = Files.getFileStore(s.workDir());
        String memory = "?";
        Path meminfo = Path.of("/proc/meminfo");
        if (Files.isReadable(meminfo)) {
            memory = Files.readAllLines(meminfo).stream().filter(l -> l.startsWith("MemTotal:"))
                    .map(l -> l.replaceAll("\\s+", " ").substring("MemTotal: ".length())).findFirst().orElse("?");
        }
        return ComparisonMain.machine(s.options()) + "\n\nMemory " + memory + "; work directory " + s.workDir()
                + " on " + store.name() + " (" + store.type() + "); load average (1, 5, 15 min) " + loadBefore
                + " at the start, " + loadAverage() + " at the end; " + String.format(Locale.ROOT, "%.0f", seconds)
                + " s in all.";
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Command-line options. */
    private record Options(Settings settings, boolean temporaryWorkDir) {
        static Options parse(String[] args) throws IOException {
            double seconds = 2;
            double warmup = 0.5;
            int rounds = 3;
            List<Integer> depths = List.of(1, 4, 16, 32);
            Path workDir = null;
            long datanodeMb = 1536;
            int tcpMb = 512;
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--seconds" -> seconds = Double.parseDouble(ComparisonMain.required(args[i], value));
                    case "--warmup-seconds" -> warmup = Double.parseDouble(ComparisonMain.required(args[i], value));
                    case "--rounds" -> rounds = Integer.parseInt(ComparisonMain.required(args[i], value));
                    case "--depths" -> depths = Arrays.stream(ComparisonMain.required(args[i], value).split(","))
                            .map(String::trim).map(Integer::valueOf).toList();
                    case "--work-dir" -> workDir = Path.of(ComparisonMain.required(args[i], value));
                    case "--datanode-mb" -> datanodeMb = Long.parseLong(ComparisonMain.required(args[i], value));
                    case "--tcp-mb" -> tcpMb = Integer.parseInt(ComparisonMain.required(args[i], value));
                    case "--help", "-h" -> {
                        System.out.println(USAGE);
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + "; " + USAGE);
                }
                i++;
            }
            if (rounds < 1 || !(seconds > 0) || warmup < 0 || depths.isEmpty()
                    || depths.stream().anyMatch(d -> d < 1)) {
                throw new IllegalArgumentException("need --rounds >= 1, --seconds > 0, --warmup-seconds >= 0 and"
                        + " depths >= 1; " + USAGE);
            }
            boolean temporary = workDir == null;
            if (temporary) {
                workDir = Files.createTempDirectory("tarn-replbench-");
            }
            Files.createDirectories(workDir);
            return new Options(new Settings(seconds, warmup, rounds, depths, workDir.toAbsolutePath(), datanodeMb,
                    tcpMb), temporary);
        }
    }
}
