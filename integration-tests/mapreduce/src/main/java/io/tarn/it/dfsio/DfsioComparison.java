package io.tarn.it.dfsio;

import io.tarn.it.ComparisonMain;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * TestDFSIO on Tarn and on HDFS in one run, same JVM, same job code, same sizes: starts a Tarn
 * cluster, runs TestDFSIO write and read on tarn://, stops it, does the same on an in-process
 * MiniDFSCluster, and prints a Markdown table with both and the Tarn/HDFS ratios on standard output
 * (progress and logs go to standard error). {@code bin/tarn-dfsio} is the launcher.
 *
 * <pre>
 * DfsioComparison [--files N] [--size-mb MB] [--warmup-mb MB] [--work-dir DIR]
 * </pre>
 *
 * Defaults: 2 files of 256 MiB, a 64 MiB-per-file warm-up, a fresh temporary work directory that is
 * removed afterwards (a given one is kept).
 */
public final class DfsioComparison {
    private DfsioComparison() {
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        ComparisonMain.printThenExit(options.settings().workDir(), options.temporaryWorkDir(), () -> {
            Comparison c = run(options.settings());
            return List.of(c.markdown(), c.environment());
        });
    }

    /** Runs both sides, Tarn first; each file system is stopped before the other starts. */
    public static Comparison run(DfsioSettings settings) throws Exception {
        PrintStream log = System.err;
        log.println("TestDFSIO on Tarn: " + settings.options());
        DfsioResult tarn;
        try (TarnTarget target = TarnTarget.start(settings)) {
            tarn = DfsioBenchmark.run(target, settings, "tarn");
        }
        log.println("TestDFSIO on HDFS: " + settings.options());
        DfsioResult hdfs;
        try (HdfsTarget target = HdfsTarget.start(Files.createDirectories(settings.workDir().resolve("minidfs")))) {
            hdfs = DfsioBenchmark.run(target, settings, "hdfs");
        }
        return new Comparison(settings, tarn, hdfs);
    }

    /** Both results and the settings that produced them. */
    public record Comparison(DfsioSettings settings, DfsioResult tarn, DfsioResult hdfs) {
        public String markdown() {
            return ComparisonTable.markdown(settings, tarn, hdfs);
        }

        /** The machine and JVM the figures come from, for the record. */
        public String environment() {
            return ComparisonMain.machine(settings.options());
        }
    }

    /** Command-line options. */
    private record Options(DfsioSettings settings, boolean temporaryWorkDir) {
        static Options parse(String[] args) throws IOException {
            int files = 2;
            int sizeMb = 256;
            int warmupMb = 64;
            Path workDir = null;
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--files" -> files = Integer.parseInt(ComparisonMain.required(args[i], value));
                    case "--size-mb" -> sizeMb = Integer.parseInt(ComparisonMain.required(args[i], value));
                    case "--warmup-mb" -> warmupMb = Integer.parseInt(ComparisonMain.required(args[i], value));
                    case "--work-dir" -> workDir = Path.of(ComparisonMain.required(args[i], value));
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + "; usage: DfsioComparison [--files N] [--size-mb MB] [--warmup-mb MB] [--work-dir DIR]");
                }
                i++;
            }
            boolean temporary = workDir == null;
            if (temporary) {
                workDir = Files.createTempDirectory("tarn-dfsio-");
            }
            return new Options(new DfsioSettings(files, sizeMb, warmupMb, workDir), temporary);
        }
    }
}
