package io.tarn.tools;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code tarn status} (the Java part): asks every namenode for its own status and prints one line
 * per namenode, then the datanodes ({@link StatusPrinter}). With {@code --wait} it polls until every
 * namenode answers and sees enough live datanodes, which is how {@code tarn start} knows the cluster
 * is up; {@code --watch-pid} makes it give up as soon as one of the daemons it waits for has exited
 * instead of waiting for the timeout.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Print each namenode's status, one line per namenode: partition, address, uptime, files, "
                + "directories, operations and operations per second (OPS/S, over --interval); with several "
                + "namenodes a total line (files and operations add up; every namenode holds every directory). "
                + "Then the datanodes as the first namenode that answers sees them, with capacity, free space "
                + "and liveness (and each namenode's share of a datanode's capacity, with several namenodes). "
                + "Then the replicated block groups and the under-replicated ones: a member's datanode is dead, "
                + "reported unreachable, or came back without its copy.",
                "The namenodes are those of the partition map of the first namenode of tarn.namenode.address "
                + "that answers. A namenode that does not answer shows as down with its address and reason; "
                + "the exit code is then 1.",
                "bin/tarn status first lists the local daemons started by 'tarn start' with their pids."})
final class StatusCommand implements Callable<Integer> {
    /** Largest --interval: an hour. */
    static final double MAX_INTERVAL_SECONDS = 3600;
    /** Largest --timeout: a day (bin/tarn start passes TARN_START_TIMEOUT). */
    static final double MAX_TIMEOUT_SECONDS = 86400;
    /** Largest --groups: every namenode details at most 100, and a screen holds fewer. */
    static final int MAX_GROUPS = 1000;

    @Spec
    private CommandSpec spec;

    @Option(names = "--wait", description = "Poll until every namenode answers and sees at least --datanodes "
            + "datanodes alive, or fail after --timeout; then print the status (OPS/S averaged since start).")
    private boolean await;

    @Option(names = "--datanodes", paramLabel = "N", defaultValue = "0",
            description = "With --wait: live datanodes every namenode must see, at least 0 "
                    + "(default: ${DEFAULT-VALUE}).")
    private int datanodes;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "With --wait: give up after this many seconds, 0 to 86400 (default: ${DEFAULT-VALUE}).")
    private double timeoutSeconds;

    @Option(names = "--watch-pid", paramLabel = "PID",
            description = "With --wait: fail at once when this process has exited (repeatable).")
    private List<Long> watchPids = new ArrayList<>();

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "1",
            description = "Take two samples this far apart (0 to 3600) and show each namenode's operations per second "
                    + "between them; 0 takes one sample and shows operations divided by uptime (default: "
                    + "${DEFAULT-VALUE}).")
    private double intervalSeconds;

    @Option(names = "--groups", paramLabel = "N", defaultValue = "" + StatusPrinter.DEFAULT_GROUPS,
            description = "List at most N of the under-replicated block groups (a member's datanode dead, "
                    + "unreachable or back without its copy), 0 to " + MAX_GROUPS + " (default: ${DEFAULT-VALUE}).")
    private int groups;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing; report through the exit code only.")
    private boolean quiet;

    @Override
    public Integer call() throws Exception {
        checkSeconds("--interval", intervalSeconds, MAX_INTERVAL_SECONDS);
        checkSeconds("--timeout", timeoutSeconds, MAX_TIMEOUT_SECONDS);
        if (groups < 0 || groups > MAX_GROUPS) {
            throw new ParameterException(spec.commandLine(), "--groups must be between 0 and " + MAX_GROUPS
                    + ", got " + groups);
        }
        if (datanodes < 0) {
            throw new ParameterException(spec.commandLine(), "--datanodes must not be negative, got " + datanodes);
        }
        TarnCli cli = TarnCli.of(spec);
        TarnConfig config = cli.config();
        if (await) {
            ClusterSnapshot up = waitForCluster(config, cli.err());
            if (up == null) {
                return TarnCli.EXIT_FAILURE;
            }
            if (!quiet) {
                StatusPrinter.print(cli.out(), null, up, 0, groups);
            }
            return 0;
        }
        return show(config, cli);
    }

    /** A number of seconds between 0 and {@code max}; NaN and infinity are not. */
    private void checkSeconds(String option, double value, double max) {
        if (!(value >= 0 && value <= max)) {
            String given = Double.isFinite(value) ? BigDecimal.valueOf(value).stripTrailingZeros().toPlainString()
                    : String.valueOf(value);
            throw new ParameterException(spec.commandLine(), option + " must be between 0 and "
                    + (long) max + " seconds, got " + given);
        }
    }

    /** One status, from one sample or two {@code --interval} apart; exit 1 when any namenode is down. */
    private int show(TarnConfig config, TarnCli cli) throws InterruptedException {
        try (StatusProbe probe = new StatusProbe(config)) {
            ClusterSnapshot before = null;
            ClusterSnapshot now = probe.sample();
            if (!quiet && intervalSeconds > 0 && now.viewer().isPresent()) {
                Thread.sleep((long) (intervalSeconds * 1000));
                before = now;
                now = probe.sample();
            }
            if (quiet) {
                return now.allUp() ? 0 : TarnCli.EXIT_FAILURE;
            }
            StatusPrinter.print(cli.out(), before, now, intervalSeconds, groups);
            if (now.allUp()) {
                return 0;
            }
            report(cli.err(), "no answer from " + now.down().stream().map(NamenodeView::name)
                    .collect(Collectors.joining(", ")));
            return TarnCli.EXIT_FAILURE;
        }
    }

    private ClusterSnapshot waitForCluster(TarnConfig config, PrintStream err) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
        String last = "no answer yet";
        // A short RPC timeout so that one unanswered poll does not eat the whole budget.
        TarnConfig polling = config.toBuilder().set(TarnKeys.RPC_TIMEOUT, 2_000L)
                .set(TarnKeys.RPC_CONNECT_TIMEOUT, 1_000L).build();
        while (true) {
            Optional<Long> dead = watchPids.stream().filter(p -> !ProcessHandle.of(p).map(ProcessHandle::isAlive)
                    .orElse(false)).findFirst();
            if (dead.isPresent()) {
                report(err, "process " + dead.get() + " exited (last answer: " + last + ")");
                return null;
            }
            try (StatusProbe probe = new StatusProbe(polling)) {
                ClusterSnapshot snapshot = probe.sample();
                String missing = snapshot.notReady(datanodes);
                if (missing == null) {
                    return snapshot;
                }
                last = missing;
            }
            if (System.nanoTime() > deadline) {
                report(err, "cluster at " + config.get(TarnKeys.NAMENODE_ADDRESS) + " not ready after "
                        + timeoutSeconds + " s: " + last);
                return null;
            }
            Thread.sleep(200);
        }
    }

    private void report(PrintStream err, String message) {
        if (!quiet) {
            err.println("tarn status: " + message);
            err.flush();
        }
    }
}
