package io.tarn.client;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.datanode.dram.DramDatanode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kill -9 of a namenode process (tarn.namenode.journal = disk) in the middle of a storm of creates,
 * renames, deletes and mkdirs from several clients, then a restart on the same journal: every
 * acknowledged mutation is there, with its file's bytes, and nothing else, except that the one
 * mutation each client had in flight when the namenode died may or may not have happened. Twice,
 * so the second restart replays the segments of two runs. The datanodes are real and keep running;
 * they register again with the restarted namenode. With two namenodes, the first round kills
 * namenode 1 and the second namenode 0 (the directory coordinator); renames then move files
 * between the two, directory changes go through namenode 0, and the restarted one takes namenode
 * 0's tree or completes its directory change under way.
 */
class NamenodeCrashTest {
    private static final int BLOCK = 16 << 10;
    private static final int CLIENTS = 4;

    @TempDir
    Path tmp;

    /** One client's view: what it was told succeeded, and the one call it had in flight when it failed. */
    private static final class Worker implements Runnable {
        final int index;
        final String root;
        final TarnClient client;
        final Random random;
        final AtomicBoolean stop;
        final Map<String, byte[]> files = new HashMap<>();
        final Set<String> dirs = new HashSet<>();
        /** Paths the call in flight at the failure may or may not have changed. */
        final Set<String> uncertain = new HashSet<>();
        int acknowledged;
        int seq;
        volatile boolean done;

        Worker(int index, TarnClient client, AtomicBoolean stop, long seed) {
            this.index = index;
            this.root = "/w" + index;
            this.client = client;
            this.stop = stop;
            this.random = new Random(seed);
        }

        @Override
        public void run() {
            try {
                while (!stop.get()) {
                    step();
                    acknowledged++;
                }
            } catch (IOException e) {
                // The namenode died under this call: its effect is uncertain, the worker stops.
            } finally {
                done = true;
            }
        }

        private void step() throws IOException {
            uncertain.clear();
            int op = random.nextInt(10);
            List<String> names = new ArrayList<>(files.keySet());
            names.sort(null);
            if (op < 4 || names.isEmpty()) {
                String path = root + "/f" + seq++;
                byte[] data = new byte[random.nextInt(3 * BLOCK)];
                random.nextBytes(data);
                uncertain.add(path);
                try (TarnOutputStream out = client.create(path)) {
                    out.write(data);
                }
                files.put(path, data);
            } else if (op < 6) {
                String from = names.get(random.nextInt(names.size()));
                String to = root + "/r" + seq++;
                uncertain.add(from);
                uncertain.add(to);
                client.rename(from, to);
                files.put(to, files.remove(from));
            } else if (op < 8) {
                String path = names.get(random.nextInt(names.size()));
                uncertain.add(path);
                assertThat(client.delete(path, false)).isTrue();
                files.remove(path);
            } else {
                String path = root + "/d" + seq++;
                uncertain.add(path);
                client.mkdirs(path);
                dirs.add(path);
            }
            uncertain.clear();
        }
    }

    private static final class NamenodeChild implements AutoCloseable {
        final Process process;
        final int port;

        /** Partition {@code partition} of the namenodes at {@code addresses}, or the only one (addresses null). */
        NamenodeChild(Path journal, int port, Path log, String addresses, int partition) throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            long from = Files.exists(log) ? Files.size(log) : 0;
            List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp",
                    System.getProperty("java.class.path"), NamenodeProcess.class.getName(), journal.toString(),
                    String.valueOf(port), String.valueOf(BLOCK)));
            if (addresses != null) {
                command.add(addresses);
                command.add(String.valueOf(partition));
            }
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Integer bound = null;
            while (bound == null) {
                String written = Files.readString(log).substring((int) from);
                for (String line : written.split("\n")) {
                    if (line.startsWith("listening ")) {
                        bound = Integer.parseInt(line.substring("listening ".length()).trim());
                    }
                }
                if (bound == null && (!process.isAlive() || System.nanoTime() > deadline)) {
                    process.destroyForcibly();
                    throw new IOException("the namenode process did not start; its output: " + written);
                }
                Thread.sleep(20);
            }
            this.port = bound;
        }

        /** kill -9: no shutdown hook, nothing flushed. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }

        @Override
        public void close() throws InterruptedException {
            if (process.isAlive()) {
                kill();
            }
        }
    }

    @ParameterizedTest(name = "{0} namenode(s)")
    @ValueSource(ints = {1, 2})
    void everyAcknowledgedMutationSurvivesKillDashNine(int count) throws Exception {
        List<NamenodeChild> nn = new ArrayList<>();
        String addresses = null;
        int[] ports = new int[count];
        if (count > 1) {
            StringBuilder list = new StringBuilder();
            for (int p = 0; p < count; p++) {
                try (ServerSocket s = new ServerSocket(0)) {
                    ports[p] = s.getLocalPort();
                }
                list.append(p == 0 ? "" : ",").append("127.0.0.1:").append(ports[p]);
            }
            addresses = list.toString();
        }
        for (int p = 0; p < count; p++) {
            nn.add(new NamenodeChild(tmp.resolve("journal-" + p), ports[p], tmp.resolve("namenode-" + p + ".log"),
                    addresses, p));
            ports[p] = nn.get(p).port;
        }
        String namenodes = addresses != null ? addresses : "127.0.0.1:" + ports[0];
        List<DramDatanode> datanodes = new ArrayList<>();
        List<TarnClient> clients = new ArrayList<>();
        try {
            TarnConfig config = TarnConfig.builder()
                    .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                    .set(TarnKeys.NAMENODE_ADDRESS, namenodes)
                    .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                    .set(TarnKeys.RPC_TIMEOUT, 3_000L)
                    .set(TarnKeys.RPC_IO_THREADS, 1)
                    .set(TarnKeys.HEARTBEAT_INTERVAL, 100L)
                    .set(TarnKeys.DRAM_CAPACITY, 64L << 20)
                    .set(TarnKeys.DRAM_REGION_SIZE, 1L << 20)
                    .build();
            for (int i = 0; i < 2; i++) {
                DramDatanode dn = DramDatanode.start(config.toBuilder()
                        .set(TarnKeys.DATANODE_BIND, "127.0.0.1:0").set(TarnKeys.DATANODE_HOSTNAME, "127.0.0.1")
                        .set(TarnKeys.DRAM_PATH, tmp.resolve("dn" + i).toString()).build());
                datanodes.add(dn);
                assertThat(dn.awaitRegistered(Duration.ofSeconds(30))).isTrue();
            }
            Map<String, byte[]> files = new HashMap<>();
            Set<String> dirs = new HashSet<>();
            for (int round = 0; round < 2; round++) {
                AtomicBoolean stop = new AtomicBoolean();
                List<Worker> workers = new ArrayList<>();
                List<Thread> threads = new ArrayList<>();
                for (int w = 0; w < CLIENTS; w++) {
                    TarnClient c = TarnClient.connect(config);
                    clients.add(c);
                    Worker worker = new Worker(w, c, stop, 1000L * round + w);
                    worker.files.putAll(subtree(files, worker.root));
                    dirs.stream().filter(d -> d.startsWith(worker.root + "/")).forEach(worker.dirs::add);
                    worker.seq = 10_000 * round;
                    if (round == 0) {
                        c.mkdirs(worker.root);
                    }
                    workers.add(worker);
                    Thread t = new Thread(worker, "storm-" + w);
                    threads.add(t);
                    t.start();
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (workers.stream().mapToInt(w -> w.acknowledged).min().orElse(0) < 40
                        && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                int victim = count == 1 ? 0 : (round == 0 ? 1 : 0);
                nn.get(victim).kill(); // mid-storm: every worker has a call in flight or about to be
                Thread.sleep(300);
                stop.set(true); // workers whose calls did not need the dead namenode stop cleanly
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                }
                int acknowledged = 0;
                Set<String> uncertain = new HashSet<>();
                for (Worker w : workers) {
                    assertThat(w.done).as("worker %d stopped after the kill", w.index).isTrue();
                    acknowledged += w.acknowledged;
                    uncertain.addAll(w.uncertain);
                    files.keySet().removeIf(p -> p.startsWith(w.root + "/"));
                    files.putAll(w.files);
                    dirs.removeIf(p -> p.startsWith(w.root + "/"));
                    dirs.addAll(w.dirs);
                }
                assertThat(acknowledged).as("mutations acknowledged before the kill").isGreaterThan(4 * 40);
                System.out.printf("%d namenode(s), round %d: %d mutations acknowledged before kill -9 of namenode %d, "
                        + "%d files and %d directories expected, %d paths uncertain%n", count, round, acknowledged,
                        victim, files.size(), dirs.size(), uncertain.size());

                nn.set(victim, new NamenodeChild(tmp.resolve("journal-" + victim), ports[victim],
                        tmp.resolve("namenode-" + victim + ".log"), addresses, victim));
                try (TarnClient checker = TarnClient.connect(config)) {
                    awaitDatanodes(checker, datanodes.size());
                    for (int w = 0; w < CLIENTS; w++) {
                        String root = "/w" + w;
                        Set<String> found = new HashSet<>();
                        for (FileStatus s : checker.list(root)) {
                            found.add(root + "/" + s.name());
                        }
                        for (String path : found) {
                            if (uncertain.contains(path)) {
                                continue;
                            }
                            assertThat(files.containsKey(path) || dirs.contains(path))
                                    .as("%s is there, but no acknowledged mutation put it there (uncertain: %s)",
                                            path, uncertain).isTrue();
                        }
                        for (Map.Entry<String, byte[]> e : subtree(files, root).entrySet()) {
                            if (uncertain.contains(e.getKey())) {
                                continue;
                            }
                            assertThat(found).as("acknowledged file %s", e.getKey()).contains(e.getKey());
                            try (TarnInputStream in = checker.open(e.getKey())) {
                                assertThat(in.readAllBytes()).as("bytes of %s", e.getKey()).isEqualTo(e.getValue());
                            }
                        }
                        for (String d : dirs) {
                            if (d.startsWith(root + "/") && !uncertain.contains(d)) {
                                assertThat(found).as("acknowledged directory %s", d).contains(d);
                            }
                        }
                    }
                    // What the killed calls may have left is settled now: the model follows the namespace.
                    for (String path : uncertain) {
                        files.remove(path);
                        dirs.remove(path);
                        if (checker.exists(path)) {
                            checker.delete(path, true);
                        }
                    }
                }
            }
        } finally {
            for (TarnClient c : clients) {
                c.close();
            }
            for (DramDatanode dn : datanodes) {
                dn.close();
            }
            for (NamenodeChild child : nn) {
                child.close();
            }
        }
    }

    private static Map<String, byte[]> subtree(Map<String, byte[]> files, String root) {
        Map<String, byte[]> out = new HashMap<>();
        files.forEach((p, d) -> {
            if (p.startsWith(root + "/")) {
                out.put(p, d);
            }
        });
        return out;
    }

    /** Until every namenode has {@code count} live datanodes. */
    private static void awaitDatanodes(TarnClient client, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (Map.Entry<String, CompletableFuture<ClusterStatus>> each : client.clusterStatusOfEach().entrySet()) {
            while (true) {
                List<DatanodeStatus> all;
                try {
                    all = each.getValue().get(10, TimeUnit.SECONDS).datanodes();
                } catch (ExecutionException e) {
                    all = List.of(); // still starting: ask again
                }
                if (all.stream().filter(d -> d.state() == DatanodeStatus.ALIVE).count() == count) {
                    break;
                }
                assertThat(System.nanoTime()).as("datanodes registered again with %s within 30 s: %s",
                        each.getKey(), all).isLessThan(deadline);
                Thread.sleep(20);
                each = Map.entry(each.getKey(), client.clusterStatusOfEach().get(each.getKey()));
            }
        }
    }
}
