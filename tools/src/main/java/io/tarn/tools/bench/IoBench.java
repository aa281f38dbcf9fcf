package io.tarn.tools.bench;

import io.tarn.client.TarnClient;
import io.tarn.tools.TarnCli;
import io.tarn.common.config.DataSize;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * {@code tarn iobench}: measures one type of operation against a running cluster, in the spirit of
 * {@code crail iobench}. Prints one result per experiment (throughput, ops/s, latency percentiles from
 * an HdrHistogram), as text or as JSON lines, and a progress line to standard error every two seconds.
 */
@Command(name = "iobench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Benchmark Tarn: run -k operations of one type -e times and print throughput "
                + "(MB = 10^6 bytes, Gbit = 10^9 bits) for data types, ops/s for metadata types, and latency "
                + "percentiles p50/p99/p99.9 per operation (asynchronous types: from issue to completion).",
                "Types: write, writeAsync, readSequential, readSequentialAsync, readRandom, createFile, "
                        + "createFileAsync, getFile, getFileAsync, getBlock, getBlockAsync, enumerateDir. "
                        + "See docs/cli.md for what each does."})
public final class IoBench implements Callable<Integer> {
    /** Largest -s: one operation's bytes are one Java array or buffer, which holds at most 2^31 - 9 bytes. */
    static final long MAX_SIZE = Integer.MAX_VALUE - 8;
    /** Largest -b: asynchronous types keep one buffer or chain per operation in flight. */
    static final int MAX_INFLIGHT = 65536;
    /** Largest --files. */
    static final int MAX_FILES = 1_000_000;

    @Spec
    private CommandSpec spec;

    @Option(names = "-t", paramLabel = "TYPE", required = true, converter = TypeConverter.class,
            description = "Operation type (case-insensitive): write, writeAsync, readSequential, readSequentialAsync, "
                    + "readRandom, createFile, createFileAsync, getFile, getFileAsync, getBlock, getBlockAsync, "
                    + "enumerateDir.")
    private BenchType type;

    @Option(names = "-f", paramLabel = "PATH",
            description = "File the type works on (directory for createFile* and enumerateDir). Default: "
                    + "/iobench/file; /iobench/create for createFile*; /iobench/dir for enumerateDir.")
    private String path;

    @Option(names = "-s", paramLabel = "SIZE", defaultValue = "1m", converter = SizeConverter.class,
            description = "Bytes per data operation, with k/m/g suffixes, from 1 to 2147483639 (2g - 9) "
                    + "(default: ${DEFAULT-VALUE}). getBlock writes a missing file with this many bytes.")
    private long size;

    @Option(names = "-k", paramLabel = "OPS", defaultValue = "1024",
            description = "Operations per experiment, at least 1 (default: ${DEFAULT-VALUE}); for write, the number of "
                    + "-s buffers written to the file.")
    private long ops;

    @Option(names = "-b", paramLabel = "INFLIGHT", defaultValue = "128",
            description = "Operations in flight for asynchronous types, 1 to 65536 (default: ${DEFAULT-VALUE}).")
    private int inflight;

    @Option(names = "-w", paramLabel = "OPS", defaultValue = "0",
            description = "Warm-up operations run once before the experiments and not measured "
                    + "(default: ${DEFAULT-VALUE}).")
    private long warmup;

    @Option(names = "-e", paramLabel = "N", defaultValue = "1",
            description = "Experiments: repeat the measurement N times (at least 1) and print each "
                    + "(default: ${DEFAULT-VALUE}).")
    private int experiments;

    @Option(names = "--json", description = "Print one JSON object per experiment, one per line, instead of text.")
    private boolean json;

    @Option(names = "--keep", description = "createFile*: keep the created files instead of deleting them.")
    private boolean keep;

    @Option(names = "--files", paramLabel = "K", defaultValue = "1",
            description = "getFile*: look up K files in turn, -f-0 .. -f-(K-1) (created empty when missing), so that "
                    + "with several namenodes the lookups spread over all of them; 1 to 1000000 "
                    + "(default: ${DEFAULT-VALUE}: -f itself).")
    private int files;

    @Override
    public Integer call() throws Exception {
        BenchParams params = params();
        TarnCli cli = TarnCli.of(spec);
        try (TarnClient client = TarnClient.connect(type.clientConfig(cli.config(), params))) {
            Workload workload = type.create(client, params);
            workload.setUp();
            try {
                if (warmup > 0) {
                    measure(workload, warmup, "warm-up", cli.err());
                }
                for (int e = 1; e <= experiments; e++) {
                    long copiedBefore = client.shortCircuitBytes();
                    Meter meter = measure(workload, ops, type.label(), cli.err());
                    BenchResult result = BenchResult.of(type.label(), type.data(), e, meter,
                            client.shortCircuitBytes() - copiedBefore, params);
                    cli.out().println(json ? result.json() : result.text());
                    cli.out().flush();
                }
            } finally {
                workload.tearDown();
            }
        }
        return 0;
    }

    private BenchParams params() {
        if (size < 1 || size > MAX_SIZE) {
            String given = DataSize.format(size);
            throw usage("-s must be between 1 and " + MAX_SIZE + " bytes (2g - 9, the largest buffer Java "
                    + "allocates), got " + size + (given.equals(String.valueOf(size)) ? "" : " (" + given + ")"));
        }
        if (ops < 1) {
            throw usage("-k must be at least 1, got " + ops);
        }
        if (inflight < 1 || inflight > MAX_INFLIGHT) {
            throw usage("-b must be between 1 and " + MAX_INFLIGHT + ", got " + inflight);
        }
        if (warmup < 0) {
            throw usage("-w must not be negative, got " + warmup);
        }
        if (experiments < 1) {
            throw usage("-e must be at least 1, got " + experiments);
        }
        if (files < 1 || files > MAX_FILES) {
            throw usage("--files must be between 1 and " + MAX_FILES + ", got " + files);
        }
        return new BenchParams(path != null ? path : type.defaultPath(), (int) size, ops, inflight, warmup,
                experiments, keep, files);
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    private Meter measure(Workload workload, long n, String label, PrintStream err)
            throws Exception {
        workload.beforeRun(n);
        Meter meter = new Meter();
        Progress progress = Progress.start(err, label, meter, n, type.data());
        try {
            meter.start();
            workload.run(n, meter);
            meter.stop();
        } finally {
            progress.close();
            workload.afterRun();
        }
        return meter;
    }

    /** Parses -t. */
    static final class TypeConverter implements CommandLine.ITypeConverter<BenchType> {
        @Override
        public BenchType convert(String value) {
            return BenchType.parse(value);
        }
    }

    /** Parses -s with k/m/g suffixes. */
    static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return DataSize.parse(value);
        }
    }
}
