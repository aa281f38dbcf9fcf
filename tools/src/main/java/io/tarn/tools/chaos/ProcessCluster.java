package io.tarn.tools.chaos;

import io.tarn.client.TarnClient;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.tools.chaos.net.Host;
import io.tarn.tools.chaos.net.NetworkLab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Tarn cluster of separate JVMs on a {@link NetworkLab}: one namenode and N DRAM datanodes, each
 * in a network namespace of its own with its own address; this JVM's clients reach them over the
 * lab's bridge. Datanode i keeps its memory files in a directory of its own under /dev/shm, which
 * survives its kill -9 and restart, as on a real host.
 *
 * <p>Settings that make faults visible quickly and keep runs comparable: 4 KiB blocks and 256 MiB
 * per datanode, not touched in advance (a run writes tens of thousands of small files, and a writer
 * allocates one write-behind window, 4 KiB, ahead), a datanode counted dead after 3 s of silence,
 * heartbeats every 200 ms, short-circuit access off (all data over TCP, so that partitions matter),
 * region files kept on a clean stop, and writer leases of an hour, so that no abandoned write is
 * closed by lease recovery (at the length last stored: partial) during a run.
 */
final class ProcessCluster implements AutoCloseable {
    static final int NAMENODE_PORT = 9060;
    static final int DATANODE_PORT = 9070;
    private static final long DATANODE_TIMEOUT_MS = 3_000;
    private static final String MEMORY_PREFIX = "tarn-chaos-";
    private static final Pattern MEMORY = Pattern.compile(MEMORY_PREFIX + "(\\d+)-.*");

    private final NetworkLab lab;
    private final Path logs;
    private final Path memory;
    private final Daemon namenode;
    private final List<Daemon> datanodes = new ArrayList<>();
    private final Map<String, String> extraKeys;
    /** Kills the daemons and frees their memory when the JVM exits before {@link #close} (Ctrl-C). */
    private final Thread hook;
    private boolean closed;

    private ProcessCluster(NetworkLab lab, Launcher launcher, Path logs, Path memory, int datanodeCount,
                           long datanodeMemory, Map<String, String> extraKeys) throws IOException {
        this.lab = lab;
        this.logs = logs;
        this.memory = memory;
        this.extraKeys = extraKeys;
        this.hook = new Thread(this::closeQuietly, "tarn-chaos-cluster-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        Host nnHost = lab.addHost("nn");
        Map<String, String> nn = common(nnHost.address());
        nn.put("tarn.namenode.datanode.timeout", Long.toString(DATANODE_TIMEOUT_MS));
        nn.put("tarn.namenode.lease.timeout", "3600000");
        // The namespace journal beside the memory files too (removed with them); tmpfs keeps what it
        // forced across the process faults run here.
        nn.put("tarn.namenode.journal.dir", memory.resolve("journal-nn").toString());
        nn.putAll(extraKeys);
        this.namenode = new Daemon("namenode", nnHost, NAMENODE_PORT, launcher.command("namenode", nn),
                logs.resolve("namenode.log"), null);
        for (int i = 0; i < datanodeCount; i++) {
            Host host = lab.addHost("dn" + i);
            Path storage = memory.resolve("dn" + i);
            Map<String, String> dn = common(nnHost.address());
            dn.put("tarn.datanode.bind", host.address() + ":" + (DATANODE_PORT + i));
            dn.put("tarn.datanode.hostname", host.address());
            dn.put("tarn.datanode.heartbeat.interval", "200");
            dn.put("tarn.datanode.dram.capacity", Long.toString(datanodeMemory));
            dn.put("tarn.datanode.dram.pretouch", "false");
            dn.put("tarn.datanode.dram.region.size", Long.toString(ChaosOptions.REGION_SIZE));
            dn.put("tarn.datanode.dram.path", storage.toString());
            dn.put("tarn.datanode.dram.mode", "mmap");
            dn.put("tarn.datanode.dram.keep", "true");
            dn.put("tarn.datanode.dram.shortcircuit", "false");
            // Group journals beside the memory files, so that close() and the sweep of a killed run's
            // leftovers remove them too. The faults here are process faults (the machine stays up), so
            // tmpfs keeps what a journal forced as a disk would.
            dn.put("tarn.replication.journal.dir", memory.resolve("journal-dn" + i).toString());
            dn.putAll(extraKeys);
            datanodes.add(new Daemon("dn" + i, host, DATANODE_PORT + i, launcher.command("datanode", dn),
                    logs.resolve("dn" + i + ".log"), storage));
        }
    }

    /** Keys every process shares: where the namenode is, TCP, the block size. */
    private static Map<String, String> common(String namenodeAddress) {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("tarn.namenode.address", namenodeAddress + ":" + NAMENODE_PORT);
        keys.put("tarn.transport", "tcp");
        keys.put("tarn.blocksize", "4k");
        return keys;
    }

    /**
     * Starts the namenode, then the datanodes, and waits until the namenode sees every datanode alive.
     *
     * @param logs      directory for the daemons' logs
     * @param extraKeys more keys for every daemon (replication, once it exists)
     */
    static ProcessCluster start(NetworkLab lab, Launcher launcher, Path logs, int datanodes, long datanodeMemory,
                                Map<String, String> extraKeys) throws IOException, InterruptedException {
        Files.createDirectories(logs);
        Path shm = Path.of("/dev/shm");
        Path parent = Files.isDirectory(shm) && Files.isWritable(shm) ? shm
                : Path.of(System.getProperty("java.io.tmpdir"));
        sweepMemory(parent);
        Path memory = Files.createTempDirectory(parent, MEMORY_PREFIX + ProcessHandle.current().pid() + "-");
        ProcessCluster cluster = null;
        try {
            cluster = new ProcessCluster(lab, launcher, logs, memory, datanodes, datanodeMemory, extraKeys);
            cluster.namenode.start();
            for (Daemon dn : cluster.datanodes) {
                dn.start();
            }
            cluster.awaitAllAlive(90_000);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (cluster != null) {
                cluster.close();
            } else {
                deleteTree(memory);
            }
            throw e;
        }
    }

    /** A client configuration for this cluster: TCP only, short timeouts so that faults surface as errors. */
    TarnConfig clientConfig() {
        TarnConfig.Builder b = TarnConfig.builder();
        common(namenode.host().address()).forEach(b::set);
        b.set("tarn.client.shortcircuit", "off");
        b.set("tarn.client.location.affinity", "false");
        b.set("tarn.rpc.timeout", "3s");
        b.set("tarn.rpc.connect.timeout", "1s");
        // Blocks are allocated a write-behind's worth ahead; a file abandoned mid-write keeps them for the
        // run (leases last an hour), so a small window keeps thousands of failed writes from filling the cluster.
        b.set("tarn.client.write.behind", "4k");
        extraKeys.forEach(b::set);
        return b.build();
    }

    List<Daemon> datanodes() {
        return datanodes;
    }

    NetworkLab lab() {
        return lab;
    }

    Path logs() {
        return logs;
    }

    /**
     * Waits until the namenode counts every datanode alive; fails naming the daemons that exited,
     * with the end of their logs.
     */
    void awaitAllAlive(long timeoutMs) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        String last = "no answer yet";
        try (TarnClient client = TarnClient.connect(clientConfig())) {
            while (System.nanoTime() < deadline) {
                checkRunning();
                try {
                    ClusterStatus status = client.clusterStatus();
                    long alive = status.datanodes().stream().filter(DatanodeStatus::alive).count();
                    // A datanode just killed still counts alive until its silence exceeds the timeout:
                    // each must also accept connections.
                    List<String> unreachable = unreachable();
                    if (alive >= datanodes.size() && unreachable.isEmpty()) {
                        return;
                    }
                    last = alive + " of " + datanodes.size() + " datanodes alive"
                            + (unreachable.isEmpty() ? "" : ", no connection to " + unreachable);
                } catch (IOException e) {
                    last = e.getMessage();
                }
                Thread.sleep(100);
            }
        }
        throw new IOException("the cluster did not come up within " + timeoutMs / 1000 + " s (" + last
                + "); daemon logs in " + logs);
    }

    /** The datanodes that refuse or do not answer a TCP connection. */
    private List<String> unreachable() {
        List<String> none = new ArrayList<>();
        for (Daemon d : datanodes) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(d.host().address(), d.port()), 500);
            } catch (IOException e) {
                none.add(d.name());
            }
        }
        return none;
    }

    private void checkRunning() throws IOException {
        List<Daemon> all = new ArrayList<>(datanodes);
        all.add(0, namenode);
        for (Daemon d : all) {
            if (!d.running() && !d.paused()) {
                String tail = tail(d.log());
                throw new IOException(d.name() + " exited; last lines of " + d.log() + ":\n" + tail);
            }
        }
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read it: " + e.getMessage() + ")";
        }
    }

    /**
     * Removes the memory directories of runs whose process is gone (killed with SIGKILL); the lab's
     * sweep has killed their daemons by then.
     */
    private static void sweepMemory(Path parent) throws IOException {
        try (Stream<Path> dirs = Files.list(parent)) {
            for (Path dir : dirs.toList()) {
                Matcher m = MEMORY.matcher(dir.getFileName().toString());
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    deleteTree(dir);
                }
            }
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (IOException e) {
            System.err.println("tarn chaos: " + e.getMessage());
        }
    }

    /** Kills every daemon, removes the network lab and the memory files; idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is exiting: the hook runs or has run.
            }
        }
        List<String> failures = new ArrayList<>();
        for (Daemon d : datanodes) {
            try {
                d.kill();
            } catch (IOException e) {
                failures.add(e.getMessage());
            }
        }
        try {
            if (namenode != null) { // null when the constructor failed and the shutdown hook closes
                namenode.kill();
            }
        } catch (IOException e) {
            failures.add(e.getMessage());
        }
        try {
            lab.close();
        } catch (IOException e) {
            failures.add(e.getMessage());
        }
        try {
            deleteTree(memory);
        } catch (IOException | UncheckedIOException e) {
            failures.add("memory files in " + memory + ": " + e.getMessage());
        }
        if (!failures.isEmpty()) {
            throw new IOException("chaos cluster clean-up: " + String.join("; ", failures));
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
