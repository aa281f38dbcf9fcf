package io.tarn.it.compare;

import io.tarn.it.ComparisonMain;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Tarn next to HDFS and next to raw loopback transports, in one run: getFile at 1, 16,
 * 64 and 128 in flight, create + close of empty files at 1 and 16, a sequential write and read with
 * 1 MiB calls (Tarn's over TCP), and on Tarn the same write and read through a second client that
 * may short-circuit to the co-located datanode's mapped files; then a Netty echo, a blocking-socket
 * ping-pong and a TCP stream as baselines. Prints one Markdown table with Tarn/HDFS and
 * Tarn/baseline ratios on standard output (progress and logs go to standard error).
 * {@code bin/tarn-compare} is the launcher.
 *
 * <pre>
 * SideBySideComparison [--seconds S] [--warmup-seconds S] [--size-mb MB] [--work-dir DIR] [--dram-root DIR]
 *                      [--rounds N]
 * </pre>
 *
 * Defaults: 5 s measured after 1 s of warm-up per load point (and unmeasured writes and reads of
 * the same size before the sequential ones until the JIT settles, see {@link #warmUp}; their figures
 * are the median of
 * {@link CompareSettings#SEQUENTIAL_PASSES} passes), a 1024 MiB file, a fresh temporary
 * work directory that is removed afterwards (a given one is kept). The baselines run first and
 * last, Tarn and HDFS in between; each file system is stopped before the next starts. With
 * {@code --rounds N} all of it runs N times: each round's table, then one with the median, smallest
 * and largest of each ratio across the rounds (single runs move by ±15% on a shared machine).
 */
public final class SideBySideComparison {
    private static final String USAGE =
            "usage: SideBySideComparison [--seconds S] [--warmup-seconds S] [--size-mb MB] [--work-dir DIR]"
                    + " [--dram-root DIR] [--rounds N] [--authentication secret|none] [--tls]";

    private SideBySideComparison() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) { // NumberFormatException included
            System.err.println("tarn-compare: " + e.getMessage());
            System.exit(2);
            return;
        }
        ComparisonMain.printThenExit(options.settings().workDir(), options.temporaryWorkDir(), () -> {
            if (options.rounds() == 1) {
                Comparison c = run(options.settings());
                return List.of(c.markdown(), c.durability(), c.legend(), c.environment());
            }
            List<String> out = new ArrayList<>();
            List<List<CompareTable.Row>> rounds = new ArrayList<>();
            Comparison last = null;
            for (int i = 1; i <= options.rounds(); i++) {
                System.err.printf(Locale.ROOT, "compare: round %d of %d%n", i, options.rounds());
                last = run(options.settings(), i % 2 == 0); // the two Tarn clusters take turns going first
                rounds.add(last.rows());
                out.add("Round " + i + " of " + options.rounds() + ":\n\n" + last.markdown() + "\n"
                        + last.durability());
            }
            out.add("All " + options.rounds() + " rounds, each ratio taken within its round:\n\n"
                    + CompareTable.summary(rounds));
            out.add(last.legend());
            out.add(ComparisonMain.machine(options.settings().options() + " --rounds " + options.rounds()));
            return out;
        });
    }

    /**
     * Runs the baselines, Tarn, HDFS, and the baselines again; each baseline figure is the better of
     * its two runs.
     */
    public static Comparison run(CompareSettings settings) throws Exception {
        return run(settings, false);
    }

    /**
     * As {@link #run(CompareSettings)}, with Tarn's journaled cluster measured before the one
     * without a journal when {@code journaledFirst} (rounds alternate, so neither always runs
     * second against the same client JVM).
     */
    static Comparison run(CompareSettings settings, boolean journaledFirst) throws Exception {
        PrintStream log = System.err;
        BaselineResult before = baselines(settings, log);
        SideResult journaled = journaledFirst ? journaled(settings, log) : null;
        SideResult tarn;
        log.println("compare: Tarn");
        try (TarnSide side = TarnSide.start(settings)) {
            tarn = measure(side, settings, log);
        }
        if (!journaledFirst) {
            journaled = journaled(settings, log);
        }
        SideResult group = replicated(settings, log);
        log.println("compare: HDFS");
        SideResult hdfs;
        try (HdfsSide side = HdfsSide.start(Files.createDirectories(settings.workDir().resolve("minidfs")))) {
            hdfs = measure(side, settings, log);
        }
        BaselineResult after = baselines(settings, log);
        return new Comparison(settings, tarn, hdfs, BaselineResult.best(before, after), journaled, group);
    }

    /** A Tarn cluster with tarn.namenode.journal = disk, started and measured (metadata only). */
    private static SideResult journaled(CompareSettings settings, PrintStream log) throws Exception {
        log.println("compare: Tarn with tarn.namenode.journal = disk (metadata only)");
        try (TarnSide side = TarnSide.start(settings, true)) {
            return measureMetadata(side, settings, log);
        }
    }

    /** A replicated group of three namenodes (tarn start -r 3), journaling in the work directory (metadata only). */
    private static SideResult replicated(CompareSettings settings, PrintStream log) throws Exception {
        log.println("compare: Tarn with a replicated group of 3 namenodes (metadata only)");
        try (TarnSide side = TarnSide.start(settings, true, 3)) {
            return measureMetadata(side, settings, log, "group ");
        }
    }

    /** getFile, create + close and rename only (no sequential rows: the journal holds no data). */
    private static SideResult measureMetadata(StorageSide side, CompareSettings s, PrintStream log) throws Exception {
        return measureMetadata(side, s, log, "journaled ");
    }

    private static SideResult measureMetadata(StorageSide side, CompareSettings s, PrintStream log, String what)
            throws Exception {
        Metadata m = metadata(side, s, log, what);
        return new SideResult(side.description() + ", with tarn.namenode.journal = disk in the work directory",
                m.getFile(), m.create(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, m.rename());
    }

    /** The metadata workloads' results, by calls in flight. */
    private record Metadata(Map<Integer, LoadResult> getFile, Map<Integer, LoadResult> create,
                            Map<Integer, LoadResult> rename) {
    }

    /** getFile at each of its depths, then create + close and rename at theirs; {@code what} prefixes the log. */
    private static Metadata metadata(StorageSide side, CompareSettings s, PrintStream log, String what)
            throws Exception {
        Map<Integer, LoadResult> getFile = new LinkedHashMap<>();
        for (int depth : CompareSettings.GET_FILE_DEPTHS) {
            getFile.put(depth, logged(log, what + "getFile, " + depth + " in flight", side.getFile(depth, s)));
        }
        if (s.warmupSeconds() > 0) {
            // The mutation path compiled on every side before a point is measured (a group's three
            // members, a namenode, HDFS's NameNode), as the sequential rows' warm-up passes do for
            // data: one second of warm-up per point was far from enough for a group's cold members.
            int deepest = CompareSettings.CREATE_DEPTHS.get(CompareSettings.CREATE_DEPTHS.size() - 1);
            CompareSettings warm = new CompareSettings(CompareSettings.MUTATION_WARMUP_FACTOR * s.warmupSeconds(), 0,
                    s.sizeMb(), s.workDir(), s.dramRoot(), s.authentication(), s.tls());
            log.println("compare: " + what + "warming up create + close and rename, " + deepest + " in flight, "
                    + warm.seconds() + " s each (not measured)");
            side.createClose(deepest, warm);
            side.rename(deepest, warm);
        }
        Map<Integer, LoadResult> create = new LinkedHashMap<>();
        for (int depth : CompareSettings.CREATE_DEPTHS) {
            create.put(depth, logged(log, what + "create + close, " + depth + " in flight",
                    side.createClose(depth, s)));
        }
        Map<Integer, LoadResult> rename = new LinkedHashMap<>();
        for (int depth : CompareSettings.CREATE_DEPTHS) {
            rename.put(depth, logged(log, what + "rename, " + depth + " in flight", side.rename(depth, s)));
        }
        return new Metadata(getFile, create, rename);
    }

    private static BaselineResult baselines(CompareSettings s, PrintStream log) throws Exception {
        Map<Integer, LoadResult> echo = new LinkedHashMap<>();
        for (int depth : CompareSettings.GET_FILE_DEPTHS) {
            echo.put(depth, logged(log, "baseline Netty echo, " + depth + " in flight",
                    NettyEchoBaseline.run(depth, s.warmupSeconds(), s.seconds())));
        }
        LoadResult pingPong = logged(log, "baseline socket ping-pong",
                SocketPingPongBaseline.run(s.warmupSeconds(), s.seconds()));
        long warmup = s.warmupSeconds() > 0 ? CompareSettings.SEQUENTIAL_WARMUP_PASSES * s.sizeBytes() : 0;
        double tcp = TcpStreamBaseline.run(s.sizeBytes(), warmup);
        log.printf(Locale.ROOT, "compare: baseline TCP stream: %.0f MB/s%n", tcp / 1e6);
        double intoMemory = TcpStreamBaseline.runIntoMemory(s.sizeBytes(), warmup, memoryDirectory(s));
        log.printf(Locale.ROOT, "compare: baseline TCP stream into memory: %.0f MB/s%n", intoMemory / 1e6);
        return new BaselineResult(NettyEchoBaseline.transport(), echo, pingPong, tcp, intoMemory);
    }

    /**
     * Where the stream into memory maps its file: where the datanode's regions are (--dram-root, else
     * /dev/shm), else the work directory.
     */
    private static Path memoryDirectory(CompareSettings s) {
        if (s.dramRoot() != null) {
            return s.dramRoot();
        }
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : s.workDir();
    }

    private static SideResult measure(StorageSide side, CompareSettings s, PrintStream log) throws Exception {
        Metadata m = metadata(side, s, log, "");
        Throughput sequential = sequential(side, s, log, "sequential");
        SequentialIo local = side.shortCircuit();
        Throughput shortCircuit = local == null ? new Throughput(Double.NaN, Double.NaN)
                : sequential(local, s, log, "short-circuit sequential");
        return new SideResult(side.description(), m.getFile(), m.create(), sequential.write(), sequential.read(),
                shortCircuit.write(), shortCircuit.read(), m.rename());
    }

    /** Sequential write and read, bytes per second. */
    private record Throughput(double write, double read) {
    }

    /**
     * unmeasured writes and reads until the JIT settles ({@link #warmUp}, when warming up), then
     * {@link CompareSettings#SEQUENTIAL_PASSES} measured ones; the medians.
     */
    private static Throughput sequential(SequentialIo io, CompareSettings s, PrintStream log, String what)
            throws IOException {
        if (s.warmupSeconds() > 0) {
            warmUp(io, s, log, what);
        }
        double[] writes = new double[CompareSettings.SEQUENTIAL_PASSES];
        double[] reads = new double[writes.length];
        for (int i = 0; i < writes.length; i++) {
            writes[i] = io.writeSequential(s.sizeBytes());
            reads[i] = io.readSequential(s.sizeBytes());
            log.printf(Locale.ROOT, "compare: %s pass %d: write %.0f MB/s, read %.0f MB/s%n", what, i + 1,
                    writes[i] / 1e6, reads[i] / 1e6);
        }
        Throughput median = new Throughput(SequentialData.median(writes), SequentialData.median(reads));
        log.printf(Locale.ROOT, "compare: %s median: write %.0f MB/s, read %.0f MB/s%n", what, median.write() / 1e6,
                median.read() / 1e6);
        return median;
    }

    /**
     * Whole unmeasured passes of the same size (after only 64 MiB, Tarn's first GiB ran at half its
     * steady rate, and HDFS warms up too): at least {@link CompareSettings#SEQUENTIAL_WARMUP_PASSES},
     * then more until a pass spends less than {@link CompareSettings#JIT_QUIET_SHARE} of its time in
     * the JIT compiler (this JVM's: the clients', and HDFS's servers'; Tarn's daemons warm up in the
     * same passes), at most
     * {@link CompareSettings#SEQUENTIAL_WARMUP_PASSES_MAX}.
     */
    private static void warmUp(SequentialIo io, CompareSettings s, PrintStream log, String what) throws IOException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        for (int i = 1; i <= CompareSettings.SEQUENTIAL_WARMUP_PASSES_MAX; i++) {
            long compiledBefore = timed ? jit.getTotalCompilationTime() : 0;
            long start = System.nanoTime();
            double write = io.writeSequential(s.sizeBytes());
            double read = io.readSequential(s.sizeBytes());
            double millis = (System.nanoTime() - start) / 1e6;
            long compiled = timed ? jit.getTotalCompilationTime() - compiledBefore : 0;
            log.printf(Locale.ROOT, "compare: %s warm-up pass %d: write %.0f MB/s, read %.0f MB/s, JIT %d ms of %.0f%n",
                    what, i, write / 1e6, read / 1e6, compiled, millis);
            if (i >= CompareSettings.SEQUENTIAL_WARMUP_PASSES
                    && (!timed || compiled < CompareSettings.JIT_QUIET_SHARE * millis)) {
                return;
            }
        }
    }

    private static LoadResult logged(PrintStream log, String what, LoadResult r) {
        log.printf(Locale.ROOT, "compare: %s: %.0f ops/s, p50 %.1f µs, p99 %.1f µs%n",
                what, r.opsPerSecond(), r.p50Micros(), r.p99Micros());
        return r;
    }

    /** Everything a run measured, and the settings that produced it. */
    public record Comparison(CompareSettings settings, SideResult tarn, SideResult hdfs, BaselineResult baseline,
                             SideResult journaled, SideResult group) {
        List<CompareTable.Row> rows() {
            return CompareTable.rows(tarn, hdfs, baseline);
        }

        public String markdown() {
            return CompareTable.markdown(rows());
        }

        /** The namespace journal's table: Tarn in memory, Tarn journaled, a replicated group, HDFS. */
        public String durability() {
            return "Namespace durability: the same metadata workloads on Tarn with tarn.namenode.journal = disk "
                    + "(every change forced to the work directory's disk before it is acknowledged, as HDFS's edit "
                    + "log is), and on a replicated group of 3 namenodes (every change written by a majority of "
                    + "their journals, in the same directory):\n\n" + CompareTable.durability(tarn, journaled, group,
                    hdfs);
        }

        public String legend() {
            return CompareTable.legend(tarn, hdfs, baseline);
        }

        /** The machine and JVM the figures come from, for the record. */
        public String environment() {
            return ComparisonMain.machine(settings.options());
        }
    }

    /** Command-line options. */
    private record Options(CompareSettings settings, boolean temporaryWorkDir, int rounds) {
        static Options parse(String[] args) throws IOException {
            double seconds = 5;
            double warmup = 1;
            int sizeMb = 1024;
            Path workDir = null;
            Path dramRoot = null;
            String authentication = "secret";
            boolean tls = false;
            int rounds = 1;
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                if (args[i].equals("--tls")) {
                    tls = true; // a flag: no value follows
                    continue;
                }
                switch (args[i]) {
                    case "--seconds" -> seconds = Double.parseDouble(ComparisonMain.required(args[i], value));
                    case "--warmup-seconds" -> warmup = Double.parseDouble(ComparisonMain.required(args[i], value));
                    case "--size-mb" -> sizeMb = Integer.parseInt(ComparisonMain.required(args[i], value));
                    case "--work-dir" -> workDir = Path.of(ComparisonMain.required(args[i], value));
                    case "--dram-root" -> dramRoot = Path.of(ComparisonMain.required(args[i], value));
                    case "--rounds" -> rounds = Integer.parseInt(ComparisonMain.required(args[i], value));
                    case "--authentication" -> authentication = ComparisonMain.required(args[i], value);
                    case "--help", "-h" -> {
                        System.out.println(USAGE);
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + "; " + USAGE);
                }
                i++;
            }
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds + "; " + USAGE);
            }
            boolean temporary = workDir == null;
            if (temporary) {
                workDir = Files.createTempDirectory("tarn-compare-");
            }
            return new Options(new CompareSettings(seconds, warmup, sizeMb, workDir, dramRoot, authentication, tls),
                    temporary, rounds);
        }
    }
}
