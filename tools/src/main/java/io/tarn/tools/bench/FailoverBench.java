package io.tarn.tools.bench;

import io.tarn.client.TarnClient;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import io.tarn.tools.TarnCli;
import io.tarn.tools.chaos.Launcher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code tarn failoverbench}: the failover time of a replicated namenode group, measured with real
 * processes. It starts a group of three namenodes and one DRAM datanode as JVMs of their own on
 * loopback, and a client that creates and closes empty files one after the other. Each round it
 * kills the leader with kill -9 and measures the time from the kill to the first of the client's
 * mutations the group answers after it (the call in flight is sent again to the new leader, which
 * applies it once), then starts the killed member again and lets it catch up. Prints a Markdown table
 * of the rounds with their median, minimum and maximum.
 */
@Command(name = "failoverbench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure a replicated namenode group's failover: start three namenodes and a DRAM "
                + "datanode on loopback, keep a client creating files, kill -9 the leader each round, and print "
                + "the time from each kill to the first mutation served after it (median, minimum, maximum)."})
public final class FailoverBench implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--rounds", paramLabel = "R", defaultValue = "5",
            description = "Leaders to kill (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Where the daemons keep their journals, storage and logs (default: a new temporary "
                    + "directory, deleted afterwards).")
    private Path dir;

    private final List<Process> members = new ArrayList<>();
    private final AtomicBoolean failed = new AtomicBoolean();

    @Override
    public Integer call() throws Exception {
        TarnCli cli = TarnCli.of(spec);
        if (rounds < 1) {
            cli.err().println("tarn failoverbench: --rounds must be at least 1, got " + rounds);
            return TarnCli.EXIT_USAGE;
        }
        boolean temporary = dir == null;
        Path work = temporary ? Files.createTempDirectory("tarn-failoverbench-") : Files.createDirectories(dir);
        Launcher launcher = Launcher.current();
        int[] ports = {freePort(), freePort(), freePort()};
        String address = "127.0.0.1:" + ports[0] + "|127.0.0.1:" + ports[1] + "|127.0.0.1:" + ports[2];
        TarnConfig config = cli.config().toBuilder().set(TarnKeys.NAMENODE_ADDRESS, address).build();
        Process datanode = null;
        try (Transport probe = Transports.create(config)) {
            for (int m = 0; m < 3; m++) {
                members.add(startMember(launcher, work, address, m));
            }
            datanode = launcher.start("datanode", Map.of(TarnKeys.NAMENODE_ADDRESS.name(), address,
                    TarnKeys.DATANODE_BIND.name(), "127.0.0.1:" + freePort(),
                    TarnKeys.DATANODE_HOSTNAME.name(), "127.0.0.1",
                    TarnKeys.DRAM_PATH.name(), work.resolve("dn").toString(),
                    TarnKeys.DRAM_CAPACITY.name(), "64m", TarnKeys.DRAM_REGION_SIZE.name(), "16m"),
                    work.resolve("datanode.log"));
            awaitLeader(probe, ports);
            long[] failovers = new long[rounds];
            try (TarnClient client = TarnClient.connect(config)) {
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong created = new AtomicLong();
                // Each create's start and end (System.nanoTime), in order.
                ConcurrentLinkedDeque<long[]> done = new ConcurrentLinkedDeque<>();
                Thread writer = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            long start = System.nanoTime();
                            client.create("/failover/f-" + created.get()).close();
                            done.add(new long[] {start, System.nanoTime()});
                            created.incrementAndGet();
                        }
                    } catch (IOException e) {
                        cli.err().println("tarn failoverbench: a create failed: " + e);
                        failed.set(true);
                        stop.set(true);
                    }
                }, "failoverbench-client");
                client.mkdirs("/failover");
                writer.start();
                for (int r = 0; r < rounds && !stop.get(); r++) {
                    Thread.sleep(1_000); // the member killed the round before caught up; calls flow
                    int leader = awaitLeader(probe, ports);
                    members.get(leader).destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                    long killedAt = System.nanoTime();
                    long served = -1;
                    while (served < 0 && !stop.get()) {
                        Thread.sleep(1);
                        // The first create begun after the kill: the new leader served it (the one in
                        // flight at the kill ends just before it, so this errs by one create's time).
                        for (long[] c : done) {
                            if (c[0] >= killedAt) {
                                served = c[1];
                                break;
                            }
                        }
                    }
                    failovers[r] = served - killedAt;
                    cli.err().printf("round %d: killed member %d, failover %.0f ms%n", r + 1, leader,
                            failovers[r] / 1e6);
                    members.set(leader, startMember(launcher, work, address, leader));
                }
                stop.set(true);
                writer.join(30_000);
                if (failed.get()) {
                    return TarnCli.EXIT_FAILURE;
                }
                cli.out().print(table(failovers, created.get()));
                cli.out().flush();
            }
            return 0;
        } finally {
            for (Process p : members) {
                p.destroyForcibly();
            }
            if (datanode != null) {
                datanode.destroyForcibly();
            }
            if (temporary) {
                deleteTree(work);
            }
        }
    }

    private Process startMember(Launcher launcher, Path work, String address, int member) throws IOException {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put(TarnKeys.NAMENODE_ADDRESS.name(), address);
        keys.put(TarnKeys.NAMENODE_MEMBER.name(), String.valueOf(member));
        keys.put(TarnKeys.NAMENODE_JOURNAL_DIR.name(), work.resolve("nn" + member).toString());
        return launcher.start("namenode", keys, work.resolve("namenode-" + member + ".log"));
    }

    /** The member that answers a lookup itself (the others answer NOT_LEADER or RETRY). */
    private static int awaitLeader(Transport transport, int[] ports) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (int m = 0; m < ports.length; m++) {
                RpcClient c = transport.connect(new InetSocketAddress("127.0.0.1", ports[m]));
                try {
                    c.call(Opcode.GET_FILE, b -> Wire.writeString(b, "/"), body -> null).get(5, TimeUnit.SECONDS);
                    return m;
                } catch (ExecutionException e) {
                    ErrorCode code = TarnException.codeOf(e.getCause());
                    if (code != ErrorCode.NOT_LEADER && code != ErrorCode.RETRY && code != ErrorCode.CONNECTION_LOST) {
                        throw new IllegalStateException("member " + m + " answered " + e.getCause());
                    }
                } catch (TimeoutException e) {
                    // not answering yet
                } finally {
                    c.close();
                }
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no member of the group led within 60 s");
    }

    private static String table(long[] failovers, long created) {
        long[] ms = Arrays.stream(failovers).map(n -> TimeUnit.NANOSECONDS.toMillis(n)).toArray();
        long[] sorted = ms.clone();
        Arrays.sort(sorted);
        StringBuilder out = new StringBuilder();
        out.append("| round | failover, ms |\n|---:|---:|\n");
        for (int r = 0; r < ms.length; r++) {
            out.append("| ").append(r + 1).append(" | ").append(ms[r]).append(" |\n");
        }
        out.append("| median | ").append(sorted[sorted.length / 2]).append(" |\n");
        out.append("| min / max | ").append(sorted[0]).append(" / ").append(sorted[sorted.length - 1]).append(" |\n");
        out.append("\nFailover: kill -9 of the leader to the first mutation served after it; ").append(created)
                .append(" files created across the run, none failed.\n");
        return out.toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path root) {
        try (var walk = Files.walk(root)) {
            walk.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }
}
