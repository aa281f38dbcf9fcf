package io.tarn.client.cli;

import io.tarn.client.TarnClient;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code tarn status} (the Java part): asks the namenode for its cluster status and prints it. With
 * {@code --wait} it polls until the namenode answers with enough live datanodes, which is how
 * {@code tarn start} knows the cluster is up; {@code --watch-pid} makes it give up as soon as one of
 * the daemons it waits for has exited instead of waiting for the timeout.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Print the namenode's view of the cluster: uptime, files, directories, operations and "
                + "each datanode with capacity, free space and liveness. Exit code 1 when the namenode does not answer.",
                "bin/tarn status first lists the local daemons started by 'tarn start' with their pids."})
final class StatusCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--wait", description = "Poll until the namenode answers and at least --datanodes datanodes "
            + "are alive, or fail after --timeout.")
    private boolean await;

    @Option(names = "--datanodes", paramLabel = "N", defaultValue = "0",
            description = "With --wait: live datanodes to wait for (default: ${DEFAULT-VALUE}).")
    private int datanodes;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "With --wait: give up after this many seconds (default: ${DEFAULT-VALUE}).")
    private double timeoutSeconds;

    @Option(names = "--watch-pid", paramLabel = "PID",
            description = "With --wait: fail at once when this process has exited (repeatable).")
    private List<Long> watchPids = new ArrayList<>();

    @Option(names = {"-q", "--quiet"}, description = "Print nothing; report through the exit code only.")
    private boolean quiet;

    @Override
    public Integer call() throws Exception {
        TarnCli cli = TarnCli.of(spec);
        TarnConfig config = cli.config();
        String address = config.get(TarnKeys.NAMENODE_ADDRESS);
        ClusterStatus status = await ? waitForCluster(config, cli.err()) : query(config);
        if (status == null) {
            return TarnCli.EXIT_FAILURE;
        }
        if (!quiet) {
            print(cli.out(), address, status);
        }
        return 0;
    }

    private static ClusterStatus query(TarnConfig config) throws IOException {
        try (TarnClient client = TarnClient.connect(config)) {
            return client.clusterStatus();
        }
    }

    private ClusterStatus waitForCluster(TarnConfig config, PrintStream err) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
        String last = "no answer yet";
        // A short RPC timeout so that one unanswered poll does not eat the whole budget.
        TarnConfig polling = config.toBuilder().set(TarnKeys.RPC_TIMEOUT, 2_000L)
                .set(TarnKeys.RPC_CONNECT_TIMEOUT, 1_000L).build();
        while (true) {
            Optional<Long> dead = watchPids.stream().filter(p -> !ProcessHandle.of(p).map(ProcessHandle::isAlive)
                    .orElse(false)).findFirst();
            if (dead.isPresent()) {
                report(err, "process " + dead.get() + " exited (last namenode answer: " + last + ")");
                return null;
            }
            try {
                ClusterStatus status = query(polling);
                long alive = status.datanodes().stream().filter(DatanodeStatus::alive).count();
                if (alive >= datanodes) {
                    return status;
                }
                last = alive + " of " + datanodes + " datanodes alive";
            } catch (IOException | RuntimeException e) {
                last = ErrorReporter.describe(e);
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

    static void print(PrintStream out, String address, ClusterStatus s) {
        long alive = s.datanodes().stream().filter(DatanodeStatus::alive).count();
        out.printf("namenode %s: up %s, %d files, %d directories, %d operations, block size %s%n", address,
                Formats.duration(s.uptimeMs()), s.files(), s.directories(), s.operations(),
                Formats.bytes(s.blockSize()));
        out.printf("datanodes: %d (%d alive)%n", s.datanodes().size(), alive);
        if (!s.datanodes().isEmpty()) {
            out.printf("  %-4s %-24s %-6s %-7s %10s %10s %6s  %s%n", "ID", "ADDRESS", "CLASS", "STATE", "CAPACITY",
                    "FREE", "USED", "LAST HEARD");
        }
        for (DatanodeStatus d : s.datanodes()) {
            long capacity = d.capacityBlocks() * s.blockSize();
            long free = d.freeBlocks() * s.blockSize();
            double used = d.capacityBlocks() == 0 ? 0 : 100.0 * (d.capacityBlocks() - d.freeBlocks()) / d.capacityBlocks();
            out.printf("  %-4d %-24s %-6s %-7s %10s %10s %5.1f%%  %s ago%n", d.id(), d.host() + ":" + d.port(),
                    d.storageClass() == 0 ? "dram" : d.storageClass() == 1 ? "flash" : "c" + d.storageClass(),
                    d.stateName(), Formats.human(capacity), Formats.human(free), used,
                    Formats.duration(d.silenceMs()));
        }
        out.flush();
    }
}
