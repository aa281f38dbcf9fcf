package io.tarn.tools.chaos;

import io.tarn.common.config.DataSize;
import io.tarn.tools.TarnCli;
import io.tarn.tools.chaos.check.LinearizabilityChecker;
import io.tarn.tools.chaos.check.Verdict;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code tarn chaos}: starts a namenode and DRAM datanodes as separate JVMs, each datanode in a
 * network namespace of its own, runs clients writing and reading files while killing, pausing,
 * restarting and isolating datanodes, then checks the recorded history for linearizability, that
 * no acknowledged write was lost and (with replication) that replicas agree. Prints the verdict;
 * exit 0 on PASS, 1 on FAIL or when the harness cannot run (not root, no iproute2), 2 on usage errors.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = {"Run a chaos test on a throw-away cluster of this distribution's daemons (one namenode, N DRAM "
                + "datanodes, each datanode in its own network namespace on a private bridge with a 192.0.2.0/24 "
                + "address), with clients writing and reading files while datanodes are killed (kill -9), paused "
                + "(SIGSTOP/SIGCONT), restarted and isolated (link down). Then: a linearizability check of the "
                + "history, every acknowledged write read back, replicas compared. Prints the verdict; a failing "
                + "run keeps its history and prints its seed. Needs root and iproute2; see docs/chaos.md."})
public final class ChaosCommand implements Callable<Integer> {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?");

    @Spec
    private CommandSpec spec;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "60s",
            description = "How long faults are injected while clients run: 90s, 2m, 1500ms "
                    + "(default: ${DEFAULT-VALUE}).")
    private String duration;

    @Option(names = "--seed", paramLabel = "N", description = "Seed of the fault schedule (default: random, printed).")
    private Long seed;

    @Option(names = "--datanodes", paramLabel = "N", defaultValue = "5",
            description = "DRAM datanodes, 1 to 32 (default: ${DEFAULT-VALUE}).")
    private int datanodes;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "4",
            description = "Client threads, each with a connection of its own, 1 to 64 (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--faults", paramLabel = "LIST", defaultValue = "kill,pause,isolate,restart",
            description = "Comma-separated faults to draw from: kill, pause, isolate, restart, and wipe (kill -9 and "
                    + "delete the datanode's memory: loses data, to see the verdict fail), or none "
                    + "(default: ${DEFAULT-VALUE}).")
    private String faults;

    @Option(names = "--replication", paramLabel = "N", defaultValue = "1",
            description = "Copies per block (default: ${DEFAULT-VALUE}; more once replication lands).")
    private int replication;

    @Option(names = "--max-faulty", paramLabel = "N", defaultValue = "1",
            description = "Most datanodes faulty at one time (default: ${DEFAULT-VALUE}).")
    private int maxFaulty;

    @Option(names = "--value-size", paramLabel = "BYTES", defaultValue = "6000",
            description = "Bytes of each file written, 64 to 1048576 (default: ${DEFAULT-VALUE}: two 4 KiB blocks).")
    private int valueSize;

    @Option(names = "--datanode-memory", paramLabel = "SIZE", defaultValue = "256m",
            description = "Memory each datanode stores blocks in, a multiple of 16m from 64m to 64g (default: "
                    + "${DEFAULT-VALUE}, which the default workload fills after about 100 s; later writes fail for "
                    + "space). Runs of several minutes want 1g or more.")
    private String datanodeMemory;

    @Option(names = "--keep-history", paramLabel = "DIR",
            description = "Keep every run's history and daemon logs under DIR (default: only a failing run's, in a "
                    + "temporary directory).")
    private Path keepHistory;

    @Option(names = "--check-history", paramLabel = "FILE",
            description = "Start nothing: check the history FILE a run kept for linearizability, print the result "
                    + "(exit 0 when linearizable, 1 otherwise).")
    private Path checkHistory;

    @Override
    public Integer call() throws Exception {
        if (checkHistory != null) {
            return recheck(TarnCli.of(spec));
        }
        ChaosOptions options;
        try {
            options = new ChaosOptions(parseDuration(duration), seed != null ? seed : System.nanoTime() & 0xFFFFFFFFL,
                    datanodes, clients, parseFaults(faults), replication, maxFaulty, keepHistory, valueSize,
                    DataSize.parse(datanodeMemory));
            Replication.check(replication);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        TarnCli cli = TarnCli.of(spec);
        ChaosReport report = new ChaosRun(options, Launcher.current(), cli.err()).run();
        report.print(cli.out());
        return report.passed() ? 0 : TarnCli.EXIT_FAILURE;
    }

    private int recheck(TarnCli cli) throws IOException {
        LinearizabilityChecker.Result result = LinearizabilityChecker.registers()
                .check(HistoryReader.read(checkHistory));
        cli.out().println("linearizability: " + result.summary());
        result.keyHistory().stream().limit(40).forEach(op -> cli.out().println("    " + op));
        return result.verdict() == Verdict.LINEARIZABLE ? 0 : TarnCli.EXIT_FAILURE;
    }

    /** Milliseconds of {@code 90s}, {@code 2m}, {@code 1500ms}, {@code 1h}; a bare number is seconds. */
    static long parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("--duration expects a time such as 60s, 2m or 1500ms, got '" + text
                    + "'");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> n;
            case "s" -> n * 1_000;
            case "m" -> n * 60_000;
            default -> n * 3_600_000;
        };
    }

    static List<Fault> parseFaults(String text) {
        List<Fault> list = new ArrayList<>();
        if (text.trim().equalsIgnoreCase("none")) {
            return list;
        }
        for (String part : text.split(",")) {
            Fault f = Fault.parse(part);
            if (!list.contains(f)) {
                list.add(f);
            }
        }
        return list;
    }
}
