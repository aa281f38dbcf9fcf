package io.tarn.tools.chaos;

import io.tarn.client.TarnClient;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Injects faults into datanodes on a schedule drawn from a seed: after a pause of 0.5 to 2.5 s, a
 * fault from the enabled set on a datanode not already faulty, held for 1 to 3.5 s, then healed;
 * at most {@code maxFaulty} datanodes faulty at a time. The same seed draws the same sequence of
 * faults, targets, holds and pauses, so a failing run's schedule can be replayed (its interleaving
 * with the clients' operations is up to the machine).
 *
 * <p>A wipe destroys a datanode's copies for good. With replication 3 the group repairs itself by
 * replacing the lost members, so a second wipe before the repair is done could take two copies of
 * one group; then a drawn wipe is a kill instead (same target and hold, and the log says so) while
 * the namenode reports an under-replicated group or within {@link #WIPE_SPACING_MS} of the last
 * wipe (the namenode reports the wiped datanode's groups only once it has missed its heartbeats).
 */
final class FaultScheduler {
    /** A fault in force, and when to heal it. */
    private record Active(Fault fault, Daemon target, long healAt) {
    }

    private final ProcessCluster cluster;
    private final History history;
    private final List<Fault> faults;
    private final Random random;
    private final int maxFaulty;
    private final PrintStream log;
    private final List<Active> active = new ArrayList<>();
    private final Map<String, Integer> injected = new TreeMap<>();
    private final boolean wipeWhenWhole;
    /**
     * Least time between two wipes when they wait for the repair: the namenode's datanode timeout
     * (3 s) and the run's {@code tarn.datanode.replace.after} (5 s), then time for the new members
     * to catch up.
     */
    static final long WIPE_SPACING_MS = 15_000;
    private long lastWipe = System.nanoTime() - WIPE_SPACING_MS * 1_000_000;

    /**
     * @param wipeWhenWhole wipe only while no block group is under-replicated (replication 3: the
     *                      lost copies of one wipe are replaced before the next)
     */
    FaultScheduler(ProcessCluster cluster, History history, List<Fault> faults, long seed, int maxFaulty,
                   boolean wipeWhenWhole, PrintStream log) {
        this.wipeWhenWhole = wipeWhenWhole;
        this.cluster = cluster;
        this.history = history;
        this.faults = List.copyOf(faults);
        this.random = new Random(seed);
        this.maxFaulty = maxFaulty;
        this.log = log;
    }

    /** Runs the schedule for {@code durationMs}, then heals every fault still in force. */
    void run(long durationMs) throws IOException, InterruptedException {
        long start = System.nanoTime();
        long end = start + durationMs * 1_000_000;
        long next = start + millis(1_000 + random.nextInt(1_000));
        try {
            while (System.nanoTime() < end) {
                long now = System.nanoTime();
                healDue(now);
                if (!faults.isEmpty() && active.size() < maxFaulty && now >= next) {
                    inject(now);
                    next = System.nanoTime() + millis(500 + random.nextInt(2_000));
                }
                Thread.sleep(20);
            }
        } finally {
            healAll();
        }
    }

    /** Faults injected, by name. */
    Map<String, Integer> injected() {
        return injected;
    }

    private void inject(long now) throws IOException {
        Fault fault = faults.get(random.nextInt(faults.size()));
        List<Daemon> healthy = new ArrayList<>(cluster.datanodes());
        for (Active a : active) {
            healthy.remove(a.target());
        }
        Daemon target = healthy.get(random.nextInt(healthy.size()));
        long hold = 1_000 + random.nextInt(2_500);
        if (fault == Fault.WIPE && wipeWhenWhole) {
            long degraded = now - lastWipe < WIPE_SPACING_MS * 1_000_000 ? 0 : underReplicated();
            if (degraded != 0 || now - lastWipe < WIPE_SPACING_MS * 1_000_000) {
                log.println("chaos: wipe     " + target.name() + " deferred: " + (degraded == 0
                        ? "less than " + WIPE_SPACING_MS / 1000 + " s since the last wipe" : degraded < 0
                        ? "no cluster status" : degraded + " block group(s) under-replicated") + "; a kill instead");
                fault = Fault.KILL;
            } else {
                lastWipe = now;
            }
        }
        event(fault.label(), target, "for " + hold + " ms");
        switch (fault) {
            case KILL -> target.kill();
            case PAUSE -> target.pause();
            case ISOLATE -> cluster.lab().isolate(target.host());
            case RESTART -> target.stop();
            case WIPE -> {
                target.kill();
                ProcessCluster.deleteTree(target.storage());
            }
            default -> throw new IllegalStateException("unknown fault " + fault);
        }
        injected.merge(fault.label(), 1, Integer::sum);
        active.add(new Active(fault, target, now + millis(hold)));
    }

    /** Block groups the namenode reports under-replicated, or -1 when it does not answer. */
    private long underReplicated() {
        try (TarnClient client = TarnClient.connect(cluster.clientConfig())) {
            return client.clusterStatus().replication().underReplicated();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private void healDue(long now) throws IOException {
        for (Iterator<Active> it = active.iterator(); it.hasNext();) {
            Active a = it.next();
            if (now >= a.healAt()) {
                heal(a);
                it.remove();
            }
        }
    }

    /** Undoes every fault in force. */
    void healAll() throws IOException {
        for (Iterator<Active> it = active.iterator(); it.hasNext();) {
            heal(it.next());
            it.remove();
        }
    }

    private void heal(Active a) throws IOException {
        Daemon target = a.target();
        switch (a.fault()) {
            case PAUSE -> {
                event("resume", target, "");
                target.resume();
            }
            case ISOLATE -> {
                event("heal", target, "");
                cluster.lab().heal(target.host());
            }
            default -> {
                event("start", target, "");
                target.start();
            }
        }
    }

    private void event(String action, Daemon target, String detail) {
        history.fault(action, target.name());
        log.printf("chaos: %-8s %s%s%n", action, target, detail.isEmpty() ? "" : " " + detail);
    }

    private static long millis(long ms) {
        return ms * 1_000_000;
    }
}
