package io.tarn.datanode.replication;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.GroupProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.replication.Mode;
import io.tarn.replication.PersistentState;
import io.tarn.replication.ReplicationConfig;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;

/**
 * The replication host's write throughput and latency, measured (not a test): {@code members}
 * datanode hosts in this JVM, each with its own transport and server on loopback and a journal on
 * disk (or in memory), and one client keeping {@code depth} GROUP_WRITEs in flight to the leader.
 * Prints one Markdown row per setting: writes/s, MB/s, median and 99th percentile latency.
 *
 * <pre>
 * java -cp datanode/target/classes:datanode/target/test-classes:$(cat cp.txt) \
 *     io.tarn.datanode.replication.GroupBench [dir] [seconds] [rounds]
 * </pre>
 * where {@code cp.txt} is written by {@code mvn -pl datanode dependency:build-classpath
 * -Dmdep.outputFile=cp.txt -Dmdep.includeScope=test}. System properties pick the depths
 * ({@code bench.depths=1,4,16,32}), the write sizes in bytes ({@code bench.sizes=4096,1048576}), the
 * settings per size ({@code bench.groups=3P,3I,1P,3M}: members and P(ARALLEL) or I(N_ORDER) on disk,
 * M a 3-member PARALLEL group on an in-memory journal at depth 16) and the protocol's timing in ticks of 1 ms
 * ({@code bench.retransmit}, {@code bench.election} (the minimum; the maximum is twice it),
 * {@code bench.heartbeat}, {@code bench.lease}; the core's defaults otherwise); {@code bench.unreliable=true}
 * runs the groups without {@code reliableLinks} (entries resent on the core's timers, not only after a
 * loss the links report), as the simulator's lossy links need and the datanodes do not.
 */
public final class GroupBench {

    private static final BlockTokens TOKENS = BlockTokens.random();
    private static final long GROUP = 1;

    private GroupBench() {
    }

    /** One setting. */
    record Setting(int members, Mode mode, boolean memory, int size, int depth) {
        String label() {
            return members + " | " + mode + " | " + (memory ? "memory" : "disk") + " | "
                    + (size >= 1 << 20 ? size / (1 << 20) + " MiB seq" : size / 1024 + " KiB rand") + " | " + depth;
        }
    }

    /** Figures of one run. */
    record Result(double opsPerSec, double mbPerSec, double p50Micros, double p99Micros) {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("tarn-groupbench");
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        List<Setting> settings = new ArrayList<>();
        int[] depths = Arrays.stream(System.getProperty("bench.depths", "1,4,16,32").split(","))
                .mapToInt(Integer::parseInt).toArray();
        int[] sizes = Arrays.stream(System.getProperty("bench.sizes", "4096,1048576").split(","))
                .mapToInt(Integer::parseInt).toArray();
        List<String> groups = List.of(System.getProperty("bench.groups", "3P,3I,1P,3M").split(","));
        for (int size : sizes) {
            for (int depth : depths) {
                for (String g : groups) {
                    if (!g.endsWith("M")) {
                        settings.add(new Setting(g.charAt(0) - '0', g.endsWith("I") ? Mode.IN_ORDER : Mode.PARALLEL,
                                false, size, depth));
                    }
                }
            }
            if (groups.contains("3M")) {
                settings.add(new Setting(3, Mode.PARALLEL, true, size, 16));
            }
        }
        System.out.println("| members | mode | journal | write | depth | writes/s | MB/s | p50 µs | p99 µs |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        int run = 0;
        for (Setting s : settings) {
            List<Result> results = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                results.add(run(s, dir.resolve("run" + run++), seconds));
            }
            Result m = median(results);
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.1f | %.0f | %.0f |%n", s.label(), m.opsPerSec(),
                    m.mbPerSec(), m.p50Micros(), m.p99Micros());
        }
    }

    private static Result median(List<Result> results) {
        double[] ops = results.stream().mapToDouble(Result::opsPerSec).sorted().toArray();
        double[] mb = results.stream().mapToDouble(Result::mbPerSec).sorted().toArray();
        double[] p50 = results.stream().mapToDouble(Result::p50Micros).sorted().toArray();
        double[] p99 = results.stream().mapToDouble(Result::p99Micros).sorted().toArray();
        int mid = results.size() / 2;
        return new Result(ops[mid], mb[mid], p50[mid], p99[mid]);
    }

    static Result run(Setting s, Path dir, double seconds) throws Exception {
        int blockSize = 1 << 20;
        int regionSize = 64 * blockSize;
        int election = Integer.getInteger("bench.election", 150);
        ReplicationConfig config = ReplicationConfig.builder().mode(s.mode())
                .retransmitTicks(Integer.getInteger("bench.retransmit", 20))
                .electionTimeout(election, 2 * election)
                .heartbeatTicks(Integer.getInteger("bench.heartbeat", 30))
                .leaseTicks(Integer.getInteger("bench.lease", 120))
                .reliableLinks(!Boolean.getBoolean("bench.unreliable")).build();
        List<Node> nodes = new ArrayList<>();
        try (Transport clients = Transports.create(TarnConfig.defaults())) {
            Map<Integer, InetSocketAddress> addresses = new HashMap<>();
            for (int i = 0; i < s.members(); i++) {
                Node n = new Node(i, dir.resolve("dn" + i), s.memory(), regionSize, blockSize, config, TOKENS, 0);
                nodes.add(n);
                addresses.put(i, n.server.localAddress());
            }
            List<GroupRunner> runners = new ArrayList<>();
            for (int i = 0; i < s.members(); i++) {
                GroupMembers members = new GroupMembers(GROUP, 1, i, addresses);
                runners.add(nodes.get(i).join(members, PersistentState.initialVoter()));
            }
            runners.get(0).campaign();
            int leader = findLeader(clients, addresses);
            RpcClient client = clients.connect(addresses.get(leader));
            byte[] data = new byte[s.size()];
            ThreadLocalRandom.current().nextBytes(data);
            AtomicLong sequence = new AtomicLong(1_000);
            long warmupEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            drive(client, leader, s, data, sequence, warmupEnd, null);
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            List<Long> latencies = new ArrayList<>();
            long done = drive(client, leader, s, data, sequence, end, latencies);
            double elapsed = (System.nanoTime() - start) / 1e9;
            long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            if (sorted.length == 0) {
                return new Result(0, 0, 0, 0);
            }
            return new Result(done / elapsed, done * (double) s.size() / elapsed / 1e6,
                    sorted[sorted.length / 2] / 1e3, sorted[(int) (sorted.length * 0.99)] / 1e3);
        } finally {
            nodes.forEach(Node::close);
        }
    }

    private static int findLeader(Transport clients, Map<Integer, InetSocketAddress> addresses) throws Exception {
        int guess = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            RpcClient c = clients.connect(addresses.get(guess));
            try {
                write(c, guess, 0, 0, new byte[1], 1).get(10, TimeUnit.SECONDS);
                return guess;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TarnException t && t.code() == ErrorCode.NOT_LEADER
                        && t.detail() instanceof ErrorDetail.Redirect r) {
                    guess = r.partition();
                } else {
                    Thread.sleep(5);
                }
            } finally {
                c.close();
            }
        }
        throw new IllegalStateException("no leader");
    }

    /** Keeps {@code depth} writes in flight until {@code end}; returns how many completed. */
    private static long drive(RpcClient client, int leader, Setting s, byte[] data, AtomicLong sequence, long end,
                              List<Long> latencies) throws Exception {
        Semaphore window = new Semaphore(s.depth());
        AtomicLong completed = new AtomicLong();
        int slots = 64;
        long next = 0;
        List<Throwable> errors = new ArrayList<>();
        while (System.nanoTime() < end) {
            window.acquire();
            long seq = sequence.getAndIncrement();
            int slot;
            int offset;
            if (s.size() >= 1 << 20) {
                slot = (int) (next++ % slots);
                offset = 0;
            } else {
                slot = ThreadLocalRandom.current().nextInt(slots);
                offset = ThreadLocalRandom.current().nextInt((1 << 20) / s.size()) * s.size();
            }
            long sent = System.nanoTime();
            write(client, leader, slot, offset, data, seq).whenComplete((ok, failure) -> {
                if (failure == null) {
                    completed.incrementAndGet();
                    if (latencies != null) {
                        synchronized (latencies) {
                            latencies.add(System.nanoTime() - sent);
                        }
                    }
                } else {
                    synchronized (errors) {
                        errors.add(failure);
                    }
                }
                window.release();
            });
        }
        window.acquire(s.depth());
        if (!errors.isEmpty()) {
            System.err.println(errors.size() + " writes failed, first: " + errors.get(0));
        }
        return completed.get();
    }

    private static CompletableFuture<Boolean> write(RpcClient client, int member, int slot, int offset, byte[] data,
                                                    long seq) {
        long stamp = TOKENS.stamp();
        long token = TOKENS.issue(member, 0, slot, 1, BlockTokens.WRITE, stamp);
        return client.call(Opcode.GROUP_WRITE, body -> {
            long firstUnacked = Math.max(1, seq - 4096);
            GroupProtocol.writeAccess(body, GROUP, slot, 1, token, stamp, offset, data.length, 9, seq, firstUnacked);
            body.writeBytes(data);
        }, answer -> Boolean.TRUE);
    }
}
