package io.tarn.client;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.datanode.dram.DramDatanode;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A one-partition namespace served by a replicated group of three namenode processes; kill -9 of
 * the leader in the middle of a storm of creates, renames, deletes and mkdirs from four clients,
 * three times in a row, each time killing whichever member leads then and starting the killed one
 * again afterwards: the clients follow the new leader without a call failing (a call in flight at
 * the kill is sent again, and the group applies it once: its retry cache), and the namespace the new
 * leader serves holds every mutation a client was told succeeded, with its file's bytes, and nothing
 * else. The datanodes are real and keep running; they register with each new leader, which issues
 * block tokens under the group's key, so writes under way carry on.
 */
class NamenodeGroupCrashTest {
    private static final int CLIENTS = 4;
    private static final int ROUNDS = 3;

    @TempDir
    Path tmp;

    /** The member that answers a lookup itself (the others answer NOT_LEADER or RETRY), or -1. */
    private static int leader(Transport transport, int[] ports, boolean[] up) {
        for (int m = 0; m < ports.length; m++) {
            if (!up[m]) {
                continue;
            }
            RpcClient c = transport.connect(new InetSocketAddress("127.0.0.1", ports[m]));
            try {
                c.call(Opcode.GET_FILE, b -> Wire.writeString(b, "/"), body -> null)
                        .get(5, TimeUnit.SECONDS);
                return m;
            } catch (ExecutionException e) {
                ErrorCode code = TarnException.codeOf(e.getCause());
                assertThat(code).as("member %d answers", m).isIn(ErrorCode.NOT_LEADER, ErrorCode.RETRY,
                        ErrorCode.CONNECTION_LOST);
            } catch (Exception e) {
                // not answering yet
            } finally {
                c.close();
            }
        }
        return -1;
    }

    private static int awaitLeader(Transport transport, int[] ports, boolean[] up) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            int m = leader(transport, ports, up);
            if (m >= 0) {
                return m;
            }
            assertThat(System.nanoTime()).as("a member leads").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void everyAcknowledgedMutationSurvivesKillDashNineOfTheLeader() throws Exception {
        int[] ports = new int[3];
        StringBuilder list = new StringBuilder();
        for (int m = 0; m < 3; m++) {
            try (ServerSocket s = new ServerSocket(0)) {
                ports[m] = s.getLocalPort();
            }
            list.append(m == 0 ? "" : "|").append("127.0.0.1:").append(ports[m]);
        }
        String addresses = list.toString();
        List<CrashStorm.NamenodeChild> nn = new ArrayList<>();
        boolean[] up = new boolean[3];
        for (int m = 0; m < 3; m++) {
            nn.add(new CrashStorm.NamenodeChild(tmp.resolve("journal-" + m), ports[m],
                    tmp.resolve("namenode-" + m + ".log"), addresses, 0, m));
            up[m] = true;
        }
        List<DramDatanode> datanodes = new ArrayList<>();
        List<TarnClient> clients = new ArrayList<>();
        try (Transport probe = Transports.create(TarnConfig.defaults())) {
            TarnConfig config = CrashStorm.config(addresses, 10_000L);
            awaitLeader(probe, ports, up);
            CrashStorm.startDatanodes(config, tmp, 2, datanodes);
            Map<String, byte[]> files = new HashMap<>();
            Set<String> dirs = new HashSet<>();
            Set<Integer> killed = new HashSet<>();
            for (int round = 0; round < ROUNDS; round++) {
                try (TarnClient checker = TarnClient.connect(config)) {
                    CrashStorm.awaitDatanodes(checker, datanodes.size());
                }
                CrashStorm.Round storm = new CrashStorm.Round(config, CLIENTS, round, files, dirs, clients);
                storm.awaitAcknowledged(30, 30);
                int victim = leader(probe, ports, up);
                assertThat(victim).as("a member leads mid-storm").isNotNegative();
                nn.get(victim).kill(); // mid-storm: every worker has a call in flight or about to be
                up[victim] = false;
                killed.add(victim);
                long killedAt = System.nanoTime();
                int next = awaitLeader(probe, ports, up);
                long failoverMs = (System.nanoTime() - killedAt) / 1_000_000;
                // The storm goes on against the new leader before it stops.
                List<CrashStorm.Worker> workers = storm.workers;
                int before = workers.stream().mapToInt(w -> w.acknowledged).sum();
                long more = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (workers.stream().filter(w -> !w.done).mapToInt(w -> w.acknowledged).sum() <= before
                        && workers.stream().anyMatch(w -> !w.done) && System.nanoTime() < more) {
                    Thread.sleep(10);
                }
                Set<String> uncertain = new HashSet<>();
                int acknowledged = storm.finish(files, dirs, uncertain);
                List<String> why = new ArrayList<>();
                int failed = 0;
                for (CrashStorm.Worker w : workers) {
                    if (w.failure != null) {
                        failed++;
                        why.add(TarnException.codeOf(w.failure) + " " + w.failure.getMessage());
                    }
                }
                assertThat(acknowledged).as("mutations acknowledged in round %d", round).isGreaterThan(4 * 30);
                System.out.printf("group of 3, round %d: kill -9 of leader %d, member %d led %d ms later; %d mutations "
                                + "acknowledged, %d of %d clients stopped by the kill; %d files and %d directories "
                                + "expected, %d paths uncertain; the clients' failures: %s%n", round, victim, next,
                        failoverMs, acknowledged, failed, CLIENTS, files.size(), dirs.size(), uncertain.size(), why);
                // Calls in flight at the kill are sent again to the new leader, which applies each once.
                assertThat(why).as("calls that failed across the failover").isEmpty();

                try (TarnClient checker = TarnClient.connect(config)) {
                    CrashStorm.awaitDatanodes(checker, datanodes.size());
                    CrashStorm.verify(checker, CLIENTS, files, dirs, uncertain);
                    CrashStorm.settle(checker, files, dirs, uncertain);
                }
                // The killed member comes back on its journal and follows.
                nn.set(victim, new CrashStorm.NamenodeChild(tmp.resolve("journal-" + victim), ports[victim],
                        tmp.resolve("namenode-" + victim + ".log"), addresses, 0, victim));
                up[victim] = true;
            }
            assertThat(killed).as("members killed as leaders").isNotEmpty();
        } finally {
            CrashStorm.closeAll(clients, datanodes, nn);
        }
    }
}
