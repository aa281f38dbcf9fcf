package io.tarn.minicluster;

import io.tarn.common.config.ConfigKey;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.datanode.dram.DramDatanode;
import io.tarn.namenode.Namenode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * One or more namenodes and N DRAM datanodes in one JVM on ephemeral loopback ports, for tests (the
 * role HDFS's MiniDFSCluster plays). With several namenodes (partitions of one namespace, see
 * docs/partitioning.md) every datanode serves every namenode. Every component talks real TCP.
 * Datanode memory lives in files under a fresh directory in /dev/shm (or the temporary directory,
 * or {@link Builder#dataRoot}), removed by {@link #close()}.
 *
 * <pre>
 * try (MiniCluster cluster = MiniCluster.builder().datanodes(2).start();
 *      TarnClient client = TarnClient.connect(cluster.config())) { ... }
 * </pre>
 */
public final class MiniCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MiniCluster.class);

    private final TarnConfig base;
    private final Path dataDir;
    private volatile Namenode namenode;
    private final List<Namenode> namenodes = new ArrayList<>();
    /** tarn.namenode.address of a cluster of several namenodes. */
    private String namenodeList;
    private final TarnConfig clientConfig;
    private final List<DramDatanode> datanodes = new ArrayList<>();
    private final List<TarnConfig> datanodeConfigs = new ArrayList<>();
    /** Keys {@link #reconfigureNamenode} set for the namenode's restarts. */
    private final List<Consumer<TarnConfig.Builder>> namenodeOverrides = new ArrayList<>();

    private MiniCluster(Builder b) throws IOException {
        this.base = b.config.build();
        this.dataDir = createDataDir(b.dataRoot);
        boolean started = false;
        try {
            this.namenode = startNamenodes(b.namenodes);
            this.clientConfig = base.toBuilder().set(TarnKeys.NAMENODE_ADDRESS, addressList()).build();
            for (int i = 0; i < b.datanodes; i++) {
                addDatanode();
            }
            started = true;
        } finally {
            if (!started) {
                closeQuietly();
            }
        }
    }

    /**
     * One namenode on an ephemeral port; several on ports picked first (each must know all the
     * addresses when it starts, to answer GET_PARTITIONS).
     */
    private Namenode startNamenodes(int count) throws IOException {
        if (count == 1) {
            namenodes.add(Namenode.start(namenodeConfig("127.0.0.1:0")));
            return namenodes.get(0);
        }
        for (int attempt = 1; ; attempt++) {
            StringBuilder list = new StringBuilder();
            for (int i = 0; i < count; i++) {
                list.append(i == 0 ? "" : ",").append("127.0.0.1:").append(freePort());
            }
            try {
                namenodeList = list.toString();
                for (int i = 0; i < count; i++) {
                    namenodes.add(Namenode.start(partitionConfig(i)));
                }
                return namenodes.get(0);
            } catch (IOException e) {
                // Typically a port picked free was taken before its namenode bound it (by any
                // socket of this machine): start again on fresh ports, a few times.
                if (attempt == 5) {
                    throw e;
                }
                namenodes.forEach(Namenode::close);
                namenodes.clear();
            }
        }
    }

    /**
     * The single namenode's configuration, listening on {@code address}; with tarn.namenode.journal =
     * disk and no journal directory set, its journal lives in the cluster's data directory.
     */
    private TarnConfig namenodeConfig(String address) {
        TarnConfig.Builder c = base.toBuilder().set(TarnKeys.NAMENODE_ADDRESS, address)
                .set(TarnKeys.NAMENODE_BIND, address);
        if (base.get(TarnKeys.NAMENODE_JOURNAL_DIR).isBlank()) {
            c.set(TarnKeys.NAMENODE_JOURNAL_DIR, dataDir.resolve("namenode").toString());
        }
        namenodeOverrides.forEach(o -> o.accept(c));
        return c.build();
    }

    /**
     * The configuration of partition {@code p} of several; with tarn.namenode.journal = disk and no
     * journal directory set, the journals live in the cluster's data directory (each namenode in a
     * subdirectory namenode-<p> of it).
     */
    private TarnConfig partitionConfig(int p) {
        TarnConfig.Builder c = base.toBuilder().set(TarnKeys.NAMENODE_ADDRESS, namenodeList)
                .set(TarnKeys.NAMENODE_PARTITION, p).set(TarnKeys.NAMENODE_BIND, "");
        if (base.get(TarnKeys.NAMENODE_JOURNAL_DIR).isBlank()) {
            c.set(TarnKeys.NAMENODE_JOURNAL_DIR, dataDir.resolve("namenode").toString());
        }
        namenodeOverrides.forEach(o -> o.accept(c));
        return c.build();
    }

    /**
     * Stops namenode {@code p} of several cleanly (its clients and peers see it gone) until
     * {@link #startNamenode}.
     */
    public synchronized void stopNamenode(int p) {
        if (namenodes.size() < 2) {
            throw new IllegalStateException("stopNamenode serves a cluster of several namenodes");
        }
        namenodes.get(p).close();
    }

    /**
     * Starts namenode {@code p} of several again at its address with the same configuration (see
     * {@link #stopNamenode}): with tarn.namenode.journal = disk it replays its journal (and, but for
     * namenode 0, takes namenode 0's directory tree); waits until every running datanode has
     * registered with it again.
     */
    public synchronized void startNamenode(int p) throws IOException {
        Namenode restarted = Namenode.start(partitionConfig(p));
        namenodes.set(p, restarted);
        if (p == 0) {
            namenode = restarted;
        }
        awaitRegistrations(restarted);
    }

    /** Sets a key of the namenode's configuration for its next {@link #restartNamenode}. */
    public synchronized <T> void reconfigureNamenode(ConfigKey<T> key, T value) {
        namenodeOverrides.add(b -> b.set(key, value));
    }

    /**
     * Stops the namenode of a one-namenode cluster cleanly and starts it again at the same address
     * with the same configuration: with tarn.namenode.journal = disk it replays its journal and the
     * datanodes register again; with none it starts empty. Waits until every running datanode has
     * registered with it again.
     */
    public synchronized void restartNamenode() throws IOException {
        if (namenodes.size() != 1) {
            throw new IllegalStateException("restartNamenode serves a cluster of one namenode");
        }
        int port = namenode.address().getPort();
        namenode.close();
        Namenode restarted = Namenode.start(namenodeConfig("127.0.0.1:" + port));
        namenodes.set(0, restarted);
        namenode = restarted;
        awaitRegistrations(restarted);
    }

    private void awaitRegistrations(Namenode restarted) throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (restarted.service().datanodes().all().stream().filter(d -> d.alive()).count()
                < datanodes.stream().filter(d -> !d.isStopped()).count()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the datanodes did not register again with the restarted namenode within 30 s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the datanodes to register");
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Every namenode's real address, in partition order. */
    private String addressList() {
        StringBuilder sb = new StringBuilder();
        for (Namenode nn : namenodes) {
            sb.append(sb.length() == 0 ? "" : ",").append(new HostPort("127.0.0.1", nn.address().getPort()));
        }
        return sb.toString();
    }

    public static Builder builder() {
        return new Builder();
    }

    private static Path createDataDir(Path root) throws IOException {
        Path shm = Path.of("/dev/shm");
        Path parent = root != null ? Files.createDirectories(root)
                : Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return Files.createTempDirectory(parent, "tarn-mini-");
    }

    /** Starts one more datanode and waits until the namenode knows it; returns its index. */
    public synchronized int addDatanode() throws IOException {
        int index = datanodes.size();
        TarnConfig c = clientConfig.toBuilder()
                .set(TarnKeys.DATANODE_BIND, "127.0.0.1:0")
                .set(TarnKeys.DATANODE_HOSTNAME, "127.0.0.1")
                .set(TarnKeys.DRAM_PATH, dataDir.resolve("dn" + index).toString())
                .set(TarnKeys.REPLICATION_JOURNAL_DIR, journalDir())
                .build();
        DramDatanode dn = DramDatanode.start(c);
        datanodes.add(dn);
        // Remember the bound port so a restart comes back at the same address.
        datanodeConfigs.add(c.toBuilder().set(TarnKeys.DATANODE_BIND, "127.0.0.1:" + dn.address().getPort()).build());
        awaitRegistered(dn, index);
        return index;
    }

    /** The configured group journal directory, else one in the cluster's data directory (deleted with it). */
    private String journalDir() {
        String configured = clientConfig.get(TarnKeys.REPLICATION_JOURNAL_DIR);
        return configured.isBlank() ? dataDir.resolve("journal").toString() : configured;
    }

    private static void awaitRegistered(DramDatanode dn, int index) throws IOException {
        try {
            if (!dn.awaitRegistered(Duration.ofSeconds(30))) {
                throw new IOException("datanode " + index + " did not register with the namenode within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for datanode " + index);
        }
    }

    /**
     * A client configuration pointing at this cluster: its namenode addresses on top of the keys the
     * builder was given. This module holds no client; tests that need one connect with it.
     */
    public TarnConfig config() {
        return clientConfig;
    }


    /** The first namenode (partition 0, the coordinator). */
    public Namenode namenode() {
        return namenode;
    }

    /** Namenode of partition {@code p}. */
    public Namenode namenode(int p) {
        return namenodes.get(p);
    }

    public int namenodeCount() {
        return namenodes.size();
    }

    public InetSocketAddress namenodeAddress() {
        return namenode.address();
    }

    public synchronized DramDatanode datanode(int index) {
        return datanodes.get(index);
    }

    public synchronized int datanodeCount() {
        return datanodes.size();
    }

    /** Stops a datanode like kill -9: no goodbye, region files kept. */
    public synchronized void crashDatanode(int index) {
        datanodes.get(index).crash();
    }

    /** Stops a datanode cleanly. */
    public synchronized void stopDatanode(int index) {
        datanodes.get(index).close();
    }

    /**
     * Starts datanode {@code index} again at the same address and memory directory (after
     * {@link #crashDatanode} its data is still there) and waits until it has registered.
     */
    public synchronized void restartDatanode(int index) throws IOException {
        DramDatanode dn = DramDatanode.start(datanodeConfigs.get(index));
        datanodes.set(index, dn);
        awaitRegistered(dn, index);
    }

    /** The directory holding datanode memory files. */
    public Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() {
        closeQuietly();
    }

    private synchronized void closeQuietly() {
        for (DramDatanode dn : datanodes) {
            try {
                dn.close();
            } catch (RuntimeException e) {
                LOG.warn("closing datanode", e);
            }
        }
        datanodes.clear();
        for (Namenode nn : namenodes) {
            try {
                nn.close();
            } catch (RuntimeException e) {
                LOG.warn("closing namenode", e); // go on: the memory files must go even so
            }
        }
        deleteTree(dataDir);
    }

    private static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("cannot remove {}: {}", dir, e.getMessage());
        }
    }

    /** Sets up a {@link MiniCluster}. Defaults: 1 namenode, 1 datanode of 64 MiB in 16 MiB regions, TCP. */
    public static final class Builder {
        private int datanodes = 1;
        private int namenodes = 1;
        private Path dataRoot;
        private final TarnConfig.Builder config = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.DRAM_CAPACITY, 64L << 20)
                .set(TarnKeys.DRAM_REGION_SIZE, 16L << 20)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 200L)
                .set(TarnKeys.RPC_IO_THREADS, 1);

        public Builder datanodes(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("datanodes must be >= 0");
            }
            this.datanodes = n;
            return this;
        }

        /** Namenodes, each serving one partition of the namespace (1 to 16). */
        public Builder namenodes(int n) {
            if (n < 1 || n > 16) {
                throw new IllegalArgumentException("namenodes must be between 1 and 16");
            }
            this.namenodes = n;
            return this;
        }

        public <T> Builder set(ConfigKey<T> key, T value) {
            config.set(key, value);
            return this;
        }

        /** Sets a key from its text form. */
        public Builder set(String key, String value) {
            config.set(key, value);
            return this;
        }

        /**
         * The directory the cluster makes its data directory in (the datanodes' region files go
         * there): {@code /dev/shm} when writable, else the temporary directory, unless set. A
         * hugetlbfs mount, for instance, puts the regions in huge pages.
         */
        public Builder dataRoot(Path root) {
            this.dataRoot = root;
            return this;
        }

        public MiniCluster start() throws IOException {
            return new MiniCluster(this);
        }
    }
}
