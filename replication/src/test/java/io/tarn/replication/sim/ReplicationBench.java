package io.tarn.replication.sim;

import io.tarn.replication.Mode;
import io.tarn.replication.ReplicationConfig;
import java.util.Locale;

/**
 * The PolarFS experiment on the simulator: write throughput and p50/p99 latency of one client
 * against in-flight depth 1..32, ParallelRaft (out-of-order) versus in-order Raft on the same core.
 *
 * <p>Everything is simulated: three replicas, no faults, one-way network latency log-normal (floor
 * 5 us, median 10 us above it, sigma 0.8), journal flush log-normal (floor 10 us, median 15 us,
 * sigma 0.7) with group commit, zero CPU cost per message, writes of one block chosen uniformly
 * among 65,536 (conflicts are rare). The "tail" model adds, to 1% of replica-to-replica messages,
 * 50..500 us (retransmits, congestion) and, to 0.2% of flushes, 200..1000 us (SSD garbage
 * collection); the client-to-leader path keeps the tail-free model in both, so differences come
 * from replication alone. Run with
 * {@code java -cp replication/target/classes:replication/target/test-classes io.tarn.replication.sim.ReplicationBench}
 * after {@code mvn -pl replication test-compile}; optional arguments: measured simulated
 * milliseconds (default 400) and seed (default 1).
 */
public final class ReplicationBench {

    private static final int[] DEPTHS = {1, 2, 4, 8, 16, 32};
    private static final long WARMUP_MICROS = 150_000;

    private ReplicationBench() {
    }

    /** Runs the sweep and prints a Markdown table. */
    public static void main(String[] args) {
        long measureMicros = (args.length > 0 ? Long.parseLong(args[0]) : 400) * 1_000;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
        table(false, measureMicros, seed);
        System.out.println();
        table(true, measureMicros, seed);
    }

    private static void table(boolean tail, long measureMicros, long seed) {
        System.out.println(tail ? "Model with latency tails:" : "Model without tails:");
        System.out.println("| depth | PARALLEL kops/s | PARALLEL p50 us | PARALLEL p99 us "
                + "| IN_ORDER kops/s | IN_ORDER p50 us | IN_ORDER p99 us |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|");
        for (int depth : DEPTHS) {
            Result parallel = run(options(Mode.PARALLEL, depth, tail), measureMicros, seed);
            Result inOrder = run(options(Mode.IN_ORDER, depth, tail), measureMicros, seed);
            System.out.println(String.format(Locale.ROOT, "| %d | %.1f | %d | %d | %.1f | %d | %d |", depth,
                    parallel.kops, parallel.p50, parallel.p99, inOrder.kops, inOrder.p50, inOrder.p99));
        }
    }

    private record Result(double kops, long p50, long p99) {
    }

    static SimOptions options(Mode mode, int depth, boolean tail) {
        ReplicationConfig config = ReplicationConfig.builder().mode(mode).window(32)
                .electionTimeout(10, 20).heartbeatTicks(3).leaseTicks(8).retransmitTicks(8)
                .checkpointInterval(4096).build();
        LatencyModel network = LatencyModel.logNormal(5, 10, 0.8);
        LatencyModel disk = LatencyModel.logNormal(10, 15, 0.7);
        if (tail) {
            network = network.withTail(0.01, 50, 500);
            disk = disk.withTail(0.002, 200, 1_000);
        }
        LatencyModel clientPath = LatencyModel.logNormal(5, 10, 0.8);
        return new SimOptions(config, 3, 1, depth, 0, 0, false, network, clientPath, disk, 65_536, 1, 1.0,
                1_000_000, 100, 1_000, 0, false, SimOptions.Bytes.NONE);
    }

    private static Result run(SimOptions options, long measureMicros, long seed) {
        Simulation sim = new Simulation(options, seed);
        sim.disablePerStepScan();
        sim.startAll();
        sim.runUntil(WARMUP_MICROS);
        SimClient client = sim.clients().get(0);
        client.latencies.clear();
        long before = sim.completedOps();
        sim.runUntil(WARMUP_MICROS + measureMicros);
        long done = sim.completedOps() - before;
        double kops = done / (measureMicros / 1_000_000.0) / 1_000.0;
        return new Result(kops, client.latencies.percentile(50), client.latencies.percentile(99));
    }
}
