package io.tarn.client;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.datanode.dram.DramDatanode;

import java.io.IOException;
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
 * What the namenode crash tests share: storm workers (creates, renames, deletes and mkdirs from one
 * client, each remembering what it was told succeeded and the one call it had in flight when it
 * failed), namenodes in processes of their own, and the check of a namespace against the workers'
 * history.
 */
final class CrashStorm {
    /** Bytes per block of the crash tests' clusters. */
    static final int BLOCK = 16 << 10;

    private CrashStorm() {
    }

    /** One client's view: what it was told succeeded, and the one call it had in flight when it failed. */
    static final class Worker implements Runnable {
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
        /** Why the worker stopped, when a call failed. */
        volatile IOException failure;

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
                failure = e;
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

    static final class NamenodeChild implements AutoCloseable {
        final Process process;
        final int port;

        /** Partition {@code partition} of the namenodes at {@code addresses}, or the only one (addresses null). */
        NamenodeChild(Path journal, int port, Path log, String addresses, int partition) throws Exception {
            this(journal, port, log, addresses, partition, -1);
        }

        /** Member {@code member} of the group of partition {@code partition} (-1: a namenode of its own). */
        NamenodeChild(Path journal, int port, Path log, String addresses, int partition, int member)
                throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            long from = Files.exists(log) ? Files.size(log) : 0;
            List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp",
                    System.getProperty("java.class.path"), NamenodeProcess.class.getName(), journal.toString(),
                    String.valueOf(port), String.valueOf(BLOCK)));
            if (addresses != null) {
                command.add(addresses);
                command.add(String.valueOf(partition));
                if (member >= 0) {
                    command.add(String.valueOf(member));
                }
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

    /**
     * The crash tests' cluster settings for {@code namenodes} (tarn.namenode.address): small blocks
     * and regions, quick heartbeats, calls that give up after {@code rpcTimeoutMs}.
     */
    static TarnConfig config(String namenodes, long rpcTimeoutMs) {
        return TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.NAMENODE_ADDRESS, namenodes)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.RPC_TIMEOUT, rpcTimeoutMs)
                .set(TarnKeys.RPC_IO_THREADS, 1)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 100L)
                .set(TarnKeys.DRAM_CAPACITY, 64L << 20)
                .set(TarnKeys.DRAM_REGION_SIZE, 1L << 20)
                .build();
    }

    /** Starts {@code n} DRAM datanodes in this JVM (storage under {@code dir}) and waits until they registered. */
    static void startDatanodes(TarnConfig config, Path dir, int n, List<DramDatanode> into)
            throws IOException, InterruptedException {
        for (int i = 0; i < n; i++) {
            DramDatanode dn = DramDatanode.start(config.toBuilder()
                    .set(TarnKeys.DATANODE_BIND, "127.0.0.1:0").set(TarnKeys.DATANODE_HOSTNAME, "127.0.0.1")
                    .set(TarnKeys.DRAM_PATH, dir.resolve("dn" + i).toString()).build());
            into.add(dn);
            assertThat(dn.awaitRegistered(Duration.ofSeconds(30))).isTrue();
        }
    }

    /** Closes the clients, then the datanodes, then kills the namenode processes still alive. */
    static void closeAll(List<TarnClient> clients, List<DramDatanode> datanodes, List<NamenodeChild> namenodes)
            throws InterruptedException {
        for (TarnClient c : clients) {
            c.close();
        }
        for (DramDatanode dn : datanodes) {
            dn.close();
        }
        for (NamenodeChild child : namenodes) {
            child.close();
        }
    }

    /**
     * One round of the storm: a worker and a client of its own for each of {@code clients} roots
     * ({@code /w<i>}), each starting from what the model holds under its root.
     */
    static final class Round {
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Worker> workers = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();

        Round(TarnConfig config, int clients, int round, Map<String, byte[]> files, Set<String> dirs,
              List<TarnClient> opened) throws IOException {
            for (int w = 0; w < clients; w++) {
                TarnClient c = TarnClient.connect(config);
                opened.add(c);
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
        }

        /** Waits (at most {@code seconds}) until every worker had {@code each} mutations acknowledged. */
        void awaitAcknowledged(int each, int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (workers.stream().mapToInt(w -> w.acknowledged).min().orElse(0) < each
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }

        /**
         * Stops the workers and folds what they were told into the model; returns the mutations
         * acknowledged, and adds the paths of the calls in flight at a failure to {@code uncertain}.
         */
        int finish(Map<String, byte[]> files, Set<String> dirs, Set<String> uncertain) throws InterruptedException {
            stop.set(true); // workers whose calls did not fail stop cleanly
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            int acknowledged = 0;
            for (Worker w : workers) {
                assertThat(w.done).as("worker %d stopped", w.index).isTrue();
                acknowledged += w.acknowledged;
                uncertain.addAll(w.uncertain);
                files.keySet().removeIf(p -> p.startsWith(w.root + "/"));
                files.putAll(w.files);
                dirs.removeIf(p -> p.startsWith(w.root + "/"));
                dirs.addAll(w.dirs);
            }
            return acknowledged;
        }
    }

    /**
     * Checks the namespace {@code checker} sees against the workers' history: every acknowledged
     * file with its bytes and every acknowledged directory is there, and nothing else but the
     * uncertain paths.
     */
    static void verify(TarnClient checker, int clients, Map<String, byte[]> files, Set<String> dirs,
                       Set<String> uncertain) throws IOException {
        for (int w = 0; w < clients; w++) {
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
    }

    /** What the killed calls may have left is settled: the model follows the namespace. */
    static void settle(TarnClient checker, Map<String, byte[]> files, Set<String> dirs, Set<String> uncertain)
            throws IOException {
        for (String path : uncertain) {
            files.remove(path);
            dirs.remove(path);
            if (checker.exists(path)) {
                checker.delete(path, true);
            }
        }
    }

    static Map<String, byte[]> subtree(Map<String, byte[]> files, String root) {
        Map<String, byte[]> out = new HashMap<>();
        files.forEach((p, d) -> {
            if (p.startsWith(root + "/")) {
                out.put(p, d);
            }
        });
        return out;
    }

    /** Until every namenode has {@code count} live datanodes. */
    static void awaitDatanodes(TarnClient client, int count) throws Exception {
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
