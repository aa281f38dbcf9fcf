package io.tarn.tools;

import io.tarn.client.TarnClient;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.AdminProtocol;
import io.tarn.common.protocol.AdminProtocol.DamagedFile;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code tarn fsck}: the files whose blocks cannot be read, as HDFS's fsck lists missing blocks.
 * Asks every namenode for the damaged files of its last scan and prints one line per file, marked
 * MISSING (some block is lost: its datanode came back, or stopped, without its data) or UNAVAILABLE
 * (blocks only on datanodes that are down, readable again when they return), then a summary and
 * {@code Status: HEALTHY} or {@code Status: CORRUPT}. Exit 0 when healthy, 1 otherwise or when a
 * namenode does not answer.
 */
@Command(name = "fsck", mixinStandardHelpOptions = true,
        description = {"List the files whose blocks cannot be read, as each namenode's last scan found them: "
                + "MISSING when a block is lost (its datanode came back or stopped without its data), UNAVAILABLE "
                + "when blocks are on datanodes that are down. Namenodes scan when a datanode stops, dies or "
                + "returns, and every few seconds while damage remains. Then 'Status: HEALTHY' (exit 0) or "
                + "'Status: CORRUPT' (exit 1); exit 1 too when a namenode does not answer."})
final class FsckCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PATH", defaultValue = "/",
            description = "List only files at or below this path (default: ${DEFAULT-VALUE}).")
    private String path;

    @Option(names = "--max", paramLabel = "N", defaultValue = "1000",
            description = "List at most N damaged files per namenode, 0 to " + AdminProtocol.MAX_FSCK_FILES
                    + " (default: ${DEFAULT-VALUE}); the counts cover them all.")
    private int max;

    @Override
    public Integer call() throws Exception {
        if (max < 0 || max > AdminProtocol.MAX_FSCK_FILES) {
            throw new ParameterException(spec.commandLine(), "--max must be between 0 and "
                    + AdminProtocol.MAX_FSCK_FILES + ", got " + max);
        }
        String prefix;
        try {
            prefix = TarnPath.normalize(path);
        } catch (TarnException e) {
            throw new ParameterException(spec.commandLine(), "not a path: '" + path + "' (" + e.getMessage() + ")");
        }
        TarnCli cli = TarnCli.of(spec);
        try (TarnClient client = TarnClient.connect(cli.config())) {
            return print(cli.out(), cli.err(), prefix, client.fsckOfEach(max));
        }
    }

    /** Prints the answers; the exit code. */
    static int print(PrintStream out, PrintStream err, String prefix,
            Map<String, CompletableFuture<FsckResponse>> each) throws InterruptedException {
        long damaged = 0;
        long lost = 0;
        long unavailable = 0;
        long listed = 0;
        long shown = 0;
        boolean allAnswered = true;
        int partition = 0;
        for (Map.Entry<String, CompletableFuture<FsckResponse>> e : each.entrySet()) {
            String name = "namenode " + partition++ + " (" + e.getKey() + ")";
            FsckResponse r;
            try {
                r = e.getValue().get(60, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException failed) {
                allAnswered = false;
                err.println("tarn fsck: " + name + " did not answer: " + ErrorReporter.describe(failed));
                continue;
            }
            damaged += r.damagedFiles();
            lost += r.lostBlocks();
            unavailable += r.unavailableBlocks();
            listed += r.files().size();
            for (DamagedFile f : r.files()) {
                if (under(f.path(), prefix)) {
                    out.println(line(f));
                    shown++;
                }
            }
            if (r.files().size() < r.damagedFiles()) {
                out.println(name + ": " + (r.damagedFiles() - r.files().size()) + " more damaged files not listed "
                        + "(--max)");
            }
            if (r.scannedAtMs() > 0) {
                out.println(name + ": last scan " + Instant.ofEpochMilli(r.scannedAtMs()));
            }
        }
        out.println();
        out.println("Damaged files: " + damaged + (prefix.equals("/") ? "" : " in the whole namespace, " + shown
                + " under " + prefix) + (listed < damaged ? " (" + listed + " listed)" : ""));
        out.println("Lost blocks (MISSING): " + lost);
        out.println("Blocks on datanodes that are down (UNAVAILABLE): " + unavailable);
        boolean healthy = prefix.equals("/") ? damaged == 0 : shown == 0 && listed == damaged;
        out.println("Status: " + (healthy ? "HEALTHY" : "CORRUPT") + (allAnswered ? "" : " (not every namenode "
                + "answered)"));
        return healthy && allAnswered ? 0 : TarnCli.EXIT_FAILURE;
    }

    /** True when {@code file} is {@code prefix} or below it. */
    static boolean under(String file, String prefix) {
        return prefix.equals("/") || file.equals(prefix) || file.startsWith(prefix + "/");
    }

    /** "/d/x: 2 of 3 blocks MISSING, 1 UNAVAILABLE". */
    static String line(DamagedFile f) {
        String of = " of " + f.blocks() + (f.blocks() == 1 ? " block" : " blocks");
        if (f.lost() > 0 && f.unavailable() > 0) {
            return f.path() + ": " + f.lost() + of + " MISSING, " + f.unavailable() + " UNAVAILABLE";
        }
        return f.path() + ": " + (f.lost() > 0 ? f.lost() + of + " MISSING" : f.unavailable() + of + " UNAVAILABLE");
    }
}
