package io.tarn.datanode.dram;

import io.tarn.common.config.DataSize;
import io.tarn.common.config.DramMode;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.datanode.BlockService;
import io.tarn.datanode.DatanodeMetrics;
import io.tarn.common.fs.BlockGroup;
import io.tarn.datanode.NamenodeLinks;
import io.tarn.datanode.RegionShare;
import io.tarn.datanode.Registration;
import io.tarn.datanode.replication.GroupCatalog;
import io.tarn.datanode.replication.HostedGroups;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A DRAM datanode: serves block reads and writes from off-heap memory regions and reports them to
 * the namenodes. The entry point for {@code tarn-datanode} processes, MiniClusters and tests.
 *
 * <p>It serves every namenode of {@code tarn.namenode.address} and divides its regions among them:
 * region {@code r} belongs to partition {@code r mod N} ({@link RegionShare}), so it needs at least
 * one region per namenode and refuses to start otherwise. With each namenode it registers,
 * heartbeats and deregisters separately ({@link NamenodeLinks}); each hands out its own datanode id
 * and token key, which check the requests for its regions only.
 *
 * <p>{@link #start} returns once the data port is bound; registration with the namenodes happens in
 * the background and is retried until each answers (see {@link #awaitRegistered}). Block requests
 * for the regions of a namenode that has not registered this datanode yet are refused with
 * {@code UNKNOWN_DATANODE} naming it; the other namenodes' regions are served meanwhile.
 *
 * <p>Where the memory comes from is set by {@code tarn.datanode.dram.mode}; with memory-mapped
 * files a datanode restarted on the same {@code tarn.datanode.dram.path} after a crash (or a clean
 * stop with {@code tarn.datanode.dram.keep}) takes over the old regions and registers them as
 * intact with every namenode, so they keep their blocks. Several datanodes may share one path and
 * one JVM.
 *
 * <p>It hosts the replicated block groups the namenodes place on its regions ({@link HostedGroups}):
 * their replicas' journals and members files live under {@code tarn.replication.journal.dir}
 * ({@link #journalRoot}); a datanode restarted on the same storage hosts its groups again.
 *
 * <p>A clean stop ({@link #close}) deregisters from every namenode first (all at once), so they
 * stop allocating blocks here at once and answer reads of the blocks here with a clear error;
 * {@link #crash} does not, like a killed process.
 *
 * <p>Thread-safe. {@link #close} and {@link #crash} are idempotent; the first one called wins.
 */
public final class DramDatanode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DramDatanode.class);
    /**
     * How long a clean stop waits for the namenode to acknowledge the deregistration. Short: a stop
     * must not hang on an unreachable namenode, which then notices the missing heartbeats instead.
     */
    private static final Duration DEREGISTER_WAIT = Duration.ofSeconds(2);

    private final TarnConfig config;
    private final List<HostPort> namenodes;
    private final DramStorage storage;
    private final DatanodeMetrics metrics;
    private final BlockService service;
    private final Transport transport;
    private final boolean ownsTransport;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private RpcServer server;
    private NamenodeLinks links;
    private HostedGroups groups;
    private String advertisedHost;

    private DramDatanode(TarnConfig config, List<HostPort> namenodes, DramStorage storage, Transport transport,
                         boolean ownsTransport) {
        this.config = config;
        this.namenodes = namenodes;
        this.storage = storage;
        this.transport = transport;
        this.ownsTransport = ownsTransport;
        this.metrics = new DatanodeMetrics();
        BlockService.LocalFiles localFiles = null;
        String noShortCircuit = "tarn.datanode.dram.shortcircuit is false";
        if (config.get(TarnKeys.DRAM_SHORTCIRCUIT)) {
            localFiles = storage.directory()
                    .map(dir -> new BlockService.LocalFiles(storage.storageId(), dir.toAbsolutePath().toString()))
                    .orElse(null);
            noShortCircuit = "the regions are in direct memory, not in files";
        }
        this.service = new BlockService(storage.regions(), metrics,
                namenodes.stream().map(HostPort::toString).toList(), localFiles, noShortCircuit);
    }

    /**
     * Starts a datanode with its own transport (closed with it), whose frames may be as large as the
     * replication of block groups needs ({@link #replicationFrames}).
     */
    public static DramDatanode start(TarnConfig config) throws IOException {
        return start(config, Transports.create(replicationFrames(config)), true);
    }

    /**
     * {@code config} with {@code tarn.rpc.max.frame} raised, if need be, to what a replication
     * message between datanodes may take: a follower's catch-up (`Sync`) carries the entries since
     * its last acknowledged one, which the leader keeps until a checkpoint
     * ({@code tarn.replication.checkpoint.bytes}), and an append carries up to
     * {@code tarn.replication.max.bytes.in.flight}; both with writes of up to a block. Clients of the
     * datanode send no such frame, but a datanode's server cannot tell them apart before decoding.
     */
    static TarnConfig replicationFrames(TarnConfig config) {
        long need = config.get(TarnKeys.REPLICATION_CHECKPOINT_BYTES)
                + 2 * config.get(TarnKeys.REPLICATION_MAX_BYTES_IN_FLIGHT)
                + (long) config.get(TarnKeys.REPLICATION_WINDOW) * config.getInt(TarnKeys.BLOCK_SIZE);
        long frame = Math.min(1L << 30, need);
        if (config.get(TarnKeys.RPC_MAX_FRAME) >= frame) {
            return config;
        }
        return config.toBuilder().set(TarnKeys.RPC_MAX_FRAME, frame).build();
    }

    /** Starts a datanode on a shared transport, which it uses but does not close. */
    public static DramDatanode start(TarnConfig config, Transport transport) throws IOException {
        return start(config, transport, false);
    }

    private static DramDatanode start(TarnConfig config, Transport transport, boolean ownsTransport)
            throws IOException {
        List<HostPort> namenodes = config.namenodes();
        DramStorage storage;
        try {
            checkNamenodes(config, namenodes);
            storage = DramStorage.open(config);
        } catch (IOException | RuntimeException e) {
            if (ownsTransport) {
                transport.close();
            }
            throw e;
        }
        DramDatanode datanode = new DramDatanode(config, namenodes, storage, transport, ownsTransport);
        try {
            datanode.serve();
        } catch (IOException | RuntimeException e) {
            // Regions found from an earlier run keep their data for the next attempt.
            datanode.stop(!storage.intact(), false);
            throw e;
        }
        return datanode;
    }

    private void serve() throws IOException {
        HostPort bind = HostPort.parse(config.get(TarnKeys.DATANODE_BIND));
        InetSocketAddress bindAddress = bind.isWildcard() ? new InetSocketAddress(bind.port())
                : new InetSocketAddress(bind.host(), bind.port());
        groups = new HostedGroups(transport, storage.regions(), service::registration,
                new GroupCatalog(journalRoot(config, storage.storageId())), config.get(TarnKeys.REPLICATION_JOURNAL),
                HostedGroups.settings(config),
                "tarn-dram-datanode-replication");
        service.serveReplicas(groups);
        service.guardReplicas(groups::replicaRegion);
        server = transport.bind(bindAddress, service);
        advertisedHost = advertisedHost(config, bind);
        DramRegistrar registrar = new DramRegistrar(storage, service, namenodes, advertisedHost, address().getPort(),
                config.get(TarnKeys.STORAGE_CLASS), groups::recover);
        links = new NamenodeLinks(transport, config.namenodeGroups(), registrar, groups,
                Duration.ofMillis(config.get(TarnKeys.HEARTBEAT_INTERVAL)),
                "tarn-dram-datanode-" + address().getPort() + "-namenodes", config.get(TarnKeys.RPC_TIMEOUT));
        // A request for a group not hosted here may be for a new one: ask its namenode now.
        groups.onUnknownGroup(id -> links.heartbeatSoon(id < 0 ? -1 : BlockGroup.partitionOf(id)));
        // A write that faulted may have found a region cut short: look now, and tell the namenodes.
        service.onRegionFault(() -> {
            if (storage.checkRegionsNow(true)) {
                links.heartbeatSoon(-1);
            }
        });
        links.start();
        LOG.info("DRAM datanode {} serving {} as {}:{}, {} regions of {} bytes ({}{}), namenodes {}",
                storage.storageId(), server.localAddress(), advertisedHost, address().getPort(),
                storage.regions().regionCount(), storage.regions().regionSize(), storage.backing(),
                service.offersShortCircuit() ? ", short-circuit for local clients" : "", namenodes);
    }

    /**
     * Refuses a configuration that cannot serve every namenode: each needs a region of its own, and
     * a namenode listed twice would be offered two shares and lose one whenever the other registers.
     */
    private static void checkNamenodes(TarnConfig config, List<HostPort> namenodes) throws TarnException {
        long capacity = config.get(TarnKeys.DRAM_CAPACITY);
        long regionSize = config.get(TarnKeys.DRAM_REGION_SIZE);
        long regions = capacity / regionSize;
        int n = namenodes.size();
        if (regions < n) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, TarnKeys.DRAM_CAPACITY + " = "
                    + DataSize.format(capacity) + " holds " + regions + " region(s) of " + TarnKeys.DRAM_REGION_SIZE
                    + " = " + DataSize.format(regionSize) + ", but the datanode divides its regions among the " + n
                    + " namenodes of " + TarnKeys.NAMENODE_ADDRESS + " and needs at least one for each: raise "
                    + TarnKeys.DRAM_CAPACITY + " to " + DataSize.format(n * regionSize) + " or more, or lower "
                    + TarnKeys.DRAM_REGION_SIZE);
        }
        Set<HostPort> seen = new HashSet<>();
        for (HostPort hp : namenodes) {
            if (!seen.add(hp)) {
                throw new TarnException(ErrorCode.INVALID_ARGUMENT, TarnKeys.NAMENODE_ADDRESS + " lists " + hp
                        + " twice; list every namenode once, in partition order");
            }
        }
    }

    /**
     * Where this datanode keeps its groups' members files and journals: {@code tarn.replication.journal.dir}
     * (else {@code ${java.io.tmpdir}/tarn-journal}) / the storage id, so datanodes sharing a machine
     * (or a directory) never mix their groups, and a datanode restarted on the same storage finds them.
     */
    static Path journalRoot(TarnConfig config, UUID storageId) {
        String dir = config.get(TarnKeys.REPLICATION_JOURNAL_DIR);
        Path base = dir.isBlank() ? Path.of(System.getProperty("java.io.tmpdir"), "tarn-journal") : Path.of(dir.trim());
        return base.resolve(storageId.toString());
    }

    /** The configured host name, else the bind host, else this machine's name for a wildcard bind. */
    static String advertisedHost(TarnConfig config, HostPort bind) {
        String configured = config.get(TarnKeys.DATANODE_HOSTNAME);
        if (!configured.isBlank()) {
            return configured.trim();
        }
        if (!bind.isWildcard()) {
            return bind.host();
        }
        try {
            return InetAddress.getLocalHost().getCanonicalHostName();
        } catch (UnknownHostException e) {
            LOG.warn("Cannot resolve this machine's name ({}); advertising 'localhost'. Set {} for clients on "
                    + "other hosts", e.getMessage(), TarnKeys.DATANODE_HOSTNAME);
            return "localhost";
        }
    }

    /** The data port's address (with the real port when bound to port 0). */
    public InetSocketAddress address() {
        return server.localAddress();
    }

    /** The host name this datanode advertises to the namenode (and through it to clients). */
    public String advertisedHost() {
        return advertisedHost;
    }

    /** The id partition 0's namenode (the only one in a cluster of one) granted, or -1 while not registered. */
    public int datanodeId() {
        return datanodeId(0);
    }

    /** The id partition {@code partition}'s namenode granted, or -1 while not registered with it. */
    public int datanodeId(int partition) {
        return links.get(partition).datanodeId();
    }

    /** How many namenodes this datanode serves. */
    public int namenodeCount() {
        return namenodes.size();
    }

    /** True while registered with every namenode. */
    public boolean isRegistered() {
        return links.allRegistered();
    }

    /** True while registered with partition {@code partition}'s namenode. */
    public boolean isRegistered(int partition) {
        return links.get(partition).isRegistered();
    }

    /** Waits until registered with every namenode; true when all accepted it within {@code timeout}. */
    public boolean awaitRegistered(Duration timeout) throws InterruptedException {
        return links.awaitRegistered(timeout);
    }

    /** The persistent storage id (the same after a restart that reuses the regions). */
    public UUID storageId() {
        return storage.storageId();
    }

    /** True when this start found the regions of an earlier run with their data (and said so to the namenode). */
    public boolean intact() {
        return storage.intact();
    }

    /** Where the regions live: {@link DramMode#MMAP} (files) or {@link DramMode#DIRECT}. */
    public DramMode backing() {
        return storage.backing();
    }

    /** The storage directory holding the region files, when memory-mapped. */
    public Optional<Path> storageDirectory() {
        return storage.directory();
    }

    /** Bytes of memory offered: region count times region size. */
    public long capacity() {
        return storage.regions().regionCount() * storage.regions().regionSize();
    }

    public int regionCount() {
        return storage.regions().regionCount();
    }

    public long regionSize() {
        return storage.regions().regionSize();
    }

    /** The block size the namenodes assigned, or -1 before the first registration. */
    public int blockSize() {
        Registration r = anyRegistration();
        return r == null ? -1 : r.blockSize();
    }

    /** Blocks this datanode offers to all namenodes (capacity / block size), or -1 before the first registration. */
    public long capacityBlocks() {
        Registration r = anyRegistration();
        return r == null ? -1 : (long) r.blocksPerRegion() * regionCount();
    }

    private Registration anyRegistration() {
        for (int p = 0; p < namenodes.size(); p++) {
            Registration r = service.registration(p);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    /** True when clients on this host may copy block data straight from and to the region files. */
    public boolean offersShortCircuit() {
        return service.offersShortCircuit();
    }

    /** Counters of the block service. */
    public DatanodeMetrics metrics() {
        return metrics;
    }

    /**
     * Stops cleanly: tells every namenode at once (DEREGISTER_DATANODE, waiting at most 2 s in all for
     * their answers, saying whether the data is kept), then stops heartbeats and requests, closes the data port, and
     * deletes the region files unless {@code tarn.datanode.dram.keep} is set. Data in direct memory is
     * never kept.
     */
    @Override
    public void close() {
        stop(!config.get(TarnKeys.DRAM_KEEP), true);
    }

    /** True once it stopped, cleanly or by {@link #crash()}. */
    public boolean isStopped() {
        return stopped.get();
    }

    /**
     * Stops at once as if the process were killed: no goodbye, and the region files (data and
     * generations) stay for a datanode started later on the same path. For tests.
     */
    public void crash() {
        stop(false, false);
    }

    /**
     * @param deleteFiles delete the region files (no effect in direct memory, which is always freed)
     * @param clean       a clean stop: deregister first and log the stop; false for a crash or a failed start
     */
    private void stop(boolean deleteFiles, boolean clean) {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        if (links != null) {
            if (clean) {
                // Before the data port closes, so the namenodes stop handing out blocks here first.
                links.deregister(!deleteFiles && storage.backing() == DramMode.MMAP, DEREGISTER_WAIT);
            }
            links.close();
        }
        if (groups != null) {
            groups.close();
            if (deleteFiles) {
                deleteJournals();
            }
        }
        if (server != null) {
            server.close();
        }
        if (ownsTransport) {
            transport.close();
        }
        try {
            storage.close(deleteFiles);
        } catch (IOException e) {
            LOG.warn("DRAM datanode {}: could not {} its storage directory {}: {}", storage.storageId(),
                    deleteFiles ? "delete" : "release", storage.directory().orElse(null), e.toString());
        }
        if (clean) {
            LOG.info("DRAM datanode {} stopped ({})", storage.storageId(), metrics);
        }
    }

    /** The regions are gone for good: so are the replicas of their groups (a new storage id never finds them). */
    private void deleteJournals() {
        Path root = journalRoot(config, storage.storageId());
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (NoSuchFileException e) {
            // no group was ever hosted
        } catch (IOException e) {
            LOG.warn("DRAM datanode {}: could not delete its group journals under {}: {}", storage.storageId(), root,
                    e.toString());
        }
    }

    /** The replicated block groups this datanode hosts. */
    public HostedGroups groups() {
        return groups;
    }

    @Override
    public String toString() {
        return "DramDatanode{" + storage.storageId() + (server != null ? " at " + server.localAddress() : "") + "}";
    }
}
