package io.tarn.tools.chaos;

import io.tarn.client.TarnClient;
import io.tarn.tools.chaos.check.LinearizabilityChecker;
import io.tarn.tools.chaos.net.NetworkLab;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One chaos run: a {@link ProcessCluster} on a fresh {@link NetworkLab}, the {@link Workload}'s
 * clients, the {@link FaultScheduler} for the run's duration, then every fault healed, the cluster
 * awaited whole again (quiescence), every acknowledged write read back, and the verdict. The
 * cluster, its namespaces, links and memory files are removed whatever happens; the history and
 * daemon logs are kept when the run fails (or when asked to).
 */
public final class ChaosRun {
    private static final long STOP_CLIENTS_MS = 30_000;
    private static final long QUIESCENCE_MS = 60_000;
    private static final int READ_BACK_PASSES = 4;

    private final ChaosOptions options;
    private final Launcher launcher;
    private final PrintStream log;

    /** A run of {@code options}, daemons started by {@code launcher}, progress lines to {@code log}. */
    public ChaosRun(ChaosOptions options, Launcher launcher, PrintStream log) {
        this.options = options;
        this.launcher = launcher;
        this.log = log;
    }

    /**
     * Runs it and returns the report.
     *
     * @throws IOException when the harness itself cannot work: no namespaces (not root), a daemon that
     *                     does not start, a cluster that does not come back; the message says which
     */
    public ChaosReport run() throws IOException, InterruptedException {
        ReplicaCheck replicaCheck = Replication.check(options.replication());
        String reason = NetworkLab.unavailableReason();
        if (reason != null) {
            throw new IOException("tarn chaos needs network namespaces: " + reason);
        }
        long started = System.nanoTime();
        Path work = workDirectory();
        log.println("chaos: seed " + options.seed() + ", " + ChaosOptions.formatDuration(options.durationMs()) + ", "
                + options.datanodes() + " datanodes, " + options.clients() + " clients, faults " + options.faults()
                + ", replication " + options.replication() + "; history and logs in " + work);
        boolean keep = options.keepHistory() != null;
        History history = new History(work.resolve("history.jsonl"));
        try {
            history.note("options " + options + "; replay: " + options.replayCommand());
            ChaosReport report = runIn(work, history, replicaCheck, started);
            keep |= !report.passed();
            history.note("verdict " + (report.passed() ? "PASS" : "FAIL"));
            return keep ? report : withoutHistory(report);
        } catch (IOException | InterruptedException | RuntimeException e) {
            keep = true;
            history.note("harness error: " + e);
            throw new IOException(e.getMessage() + " (history and daemon logs kept in " + work + ")", e);
        } finally {
            history.close();
            if (!keep) {
                ProcessCluster.deleteTree(work);
            }
        }
    }

    private ChaosReport runIn(Path work, History history, ReplicaCheck replicaCheck, long started)
            throws IOException, InterruptedException {
        NetworkLab lab = NetworkLab.create();
        Workload workload;
        Map<String, String> lost;
        FaultScheduler faults;
        ReplicaCheck.Result replicas;
        try (ProcessCluster cluster = startCluster(lab, work)) {
            log.printf("chaos: cluster up in %.1f s (namenode and %d datanodes on %s)%n", seconds(started),
                    options.datanodes(), lab.tag());
            workload = new Workload(cluster.clientConfig(), history, options.clients(), options.seed(),
                    options.valueSize());
            workload.start();
            faults = new FaultScheduler(cluster, history, options.faults(), options.seed(), options.maxFaulty(),
                    options.replication() > 1, log);
            try {
                faults.run(options.durationMs());
            } finally {
                workload.stop(STOP_CLIENTS_MS);
            }
            log.println("chaos: clients stopped, faults healed; waiting for every datanode to be alive");
            cluster.awaitAllAlive(QUIESCENCE_MS);
            lost = readBack(cluster, workload, history);
            List<String> paths = new ArrayList<>();
            workload.acknowledged().keySet().forEach(k -> paths.add(Workload.path(k)));
            replicas = replicaCheck.compare(paths, cluster.clientConfig());
        } finally {
            lab.close();
        }
        LinearizabilityChecker.Result check = LinearizabilityChecker.registers().check(history.operations());
        Map<String, Long> ops = new TreeMap<>();
        workload.counts().forEach((k, v) -> ops.put(k, v.get()));
        return new ChaosReport(options, faults.injected(), ops, check, workload.acknowledged().size(), lost, replicas,
                history.file(), seconds(started));
    }

    private ProcessCluster startCluster(NetworkLab lab, Path work) throws IOException, InterruptedException {
        try {
            return ProcessCluster.start(lab, launcher, work.resolve("logs"), options.datanodes(),
                    options.datanodeMemory(), Replication.keys(options.replication()));
        } catch (IOException | InterruptedException | RuntimeException e) {
            lab.close();
            throw e;
        }
    }

    /**
     * Reads every acknowledged write back, in passes (a read that fails is tried again in the next
     * pass, a second apart); returns those not read back with their value: key to what was found.
     */
    private Map<String, String> readBack(ProcessCluster cluster, Workload workload, History history)
            throws InterruptedException {
        Map<String, String> pending = new LinkedHashMap<>(workload.acknowledged());
        Map<String, String> lost = new TreeMap<>();
        int verifier = options.clients();
        try (TarnClient client = TarnClient.connect(cluster.clientConfig())) {
            for (int pass = 1; pass <= READ_BACK_PASSES && !pending.isEmpty(); pass++) {
                Map<String, String> retry = new LinkedHashMap<>();
                for (Map.Entry<String, String> e : pending.entrySet()) {
                    try {
                        String found = workload.read(client, verifier, e.getKey());
                        if (!e.getValue().equals(found)) {
                            lost.put(e.getKey(), found == null ? "absent" : "read " + found + " instead of "
                                    + e.getValue());
                        }
                    } catch (Workload.ReadFailed failed) {
                        retry.put(e.getKey(), e.getValue());
                        lost.put(e.getKey(), failed.getMessage());
                    }
                }
                pending = retry;
                if (!pending.isEmpty() && pass < READ_BACK_PASSES) {
                    log.println("chaos: " + pending.size() + " acknowledged writes unreadable; trying again");
                    Thread.sleep(1_000);
                    pending.keySet().forEach(lost::remove);
                }
            }
        }
        return lost;
    }

    private Path workDirectory() throws IOException {
        String name = "chaos-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-seed-"
                + options.seed();
        if (options.keepHistory() != null) {
            return Files.createDirectories(options.keepHistory().resolve(name));
        }
        return Files.createTempDirectory("tarn-" + name + "-");
    }

    private static ChaosReport withoutHistory(ChaosReport r) {
        return new ChaosReport(r.options(), r.faults(), r.operations(), r.linearizable(), r.acknowledged(), r.lost(),
                r.replicas(), null, r.seconds());
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
