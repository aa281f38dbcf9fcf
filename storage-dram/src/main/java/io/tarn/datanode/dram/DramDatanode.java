package io.tarn.datanode.dram;

import io.tarn.common.config.DramMode;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.BlockService;
import io.tarn.datanode.DatanodeMetrics;
import io.tarn.datanode.GenerationTable;
import io.tarn.datanode.NamenodeLink;
import io.tarn.datanode.Registration;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A DRAM datanode: serves block reads and writes from off-heap memory regions and reports them to
 * the namenode. The entry point for {@code tarn-datanode} processes, MiniClusters and tests.
 *
 * <p>{@link #start} returns once the data port is bound; registration with the namenode happens in
 * the background and is retried until the namenode answers (see {@link #awaitRegistered}). Block
 * requests arriving before that are refused with {@code UNKNOWN_DATANODE}.
 *
 * <p>Where the memory comes from is set by {@code tarn.datanode.dram.mode}; with memory-mapped
 * files a datanode restarted on the same {@code tarn.datanode.dram.path} after a crash (or a clean
 * stop with {@code tarn.datanode.dram.keep}) takes over the old regions and registers them as
 * intact, so the namenode keeps their blocks. Several datanodes may share one path and one JVM.
 *
 * <p>A clean stop ({@link #close}) deregisters from the namenode first, so it stops allocating
 * blocks here at once and answers reads of the blocks here with a clear error; {@link #crash} does
 * not, like a killed process.
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
    private final DramStorage storage;
    private final DatanodeMetrics metrics;
    private final BlockService service;
    private final Transport transport;
    private final boolean ownsTransport;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private RpcServer server;
    private NamenodeLink link;
    private String advertisedHost;
    /** Set once the first registration succeeded: later registrations report the regions intact. */
    private volatile boolean everRegistered;

    private DramDatanode(TarnConfig config, DramStorage storage, Transport transport, boolean ownsTransport) {
        this.config = config;
        this.storage = storage;
        this.transport = transport;
        this.ownsTransport = ownsTransport;
        this.metrics = new DatanodeMetrics();
        this.service = new BlockService(storage.regions(), metrics);
    }

    /** Starts a datanode with its own transport (closed with it). */
    public static DramDatanode start(TarnConfig config) throws IOException {
        return start(config, Transports.create(config), true);
    }

    /** Starts a datanode on a shared transport, which it uses but does not close. */
    public static DramDatanode start(TarnConfig config, Transport transport) throws IOException {
        return start(config, transport, false);
    }

    private static DramDatanode start(TarnConfig config, Transport transport, boolean ownsTransport)
            throws IOException {
        DramStorage storage;
        try {
            storage = DramStorage.open(config);
        } catch (IOException | RuntimeException e) {
            if (ownsTransport) {
                transport.close();
            }
            throw e;
        }
        DramDatanode datanode = new DramDatanode(config, storage, transport, ownsTransport);
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
        server = transport.bind(bindAddress, service);
        advertisedHost = advertisedHost(config, bind);
        HostPort namenode = HostPort.parse(config.get(TarnKeys.NAMENODE_ADDRESS));
        link = new NamenodeLink(transport.connect(namenode.toSocketAddress()), this::registerRequest,
                this::registered, Duration.ofMillis(config.get(TarnKeys.HEARTBEAT_INTERVAL)),
                "tarn-dram-datanode-" + address().getPort() + "-namenode");
        link.start();
        LOG.info("DRAM datanode {} serving {} as {}:{}, {} regions of {} bytes ({}), namenode {}",
                storage.storageId(), server.localAddress(), advertisedHost, address().getPort(),
                storage.regions().regionCount(), storage.regions().regionSize(), storage.backing(), namenode);
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

    private RegisterRequest registerRequest() {
        UUID id = storage.storageId();
        return new RegisterRequest(id.getMostSignificantBits(), id.getLeastSignificantBits(), advertisedHost,
                address().getPort(), config.get(TarnKeys.STORAGE_CLASS), storage.regions().regionSize(),
                storage.regions().regionCount(), everRegistered || storage.intact());
    }

    private void registered(RegisterResponse response) throws IOException {
        int blockSize = response.blockSize();
        long regionSize = storage.regions().regionSize();
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1 || regionSize % blockSize != 0) {
            throw new IOException("block size " + blockSize + " does not divide the region size " + regionSize);
        }
        GenerationTable generations = storage.generations(blockSize);
        if (response.resetGenerations()) {
            generations.reset();
        }
        service.register(new Registration(response.datanodeId(), blockSize,
                new BlockTokens(response.tokenKey0(), response.tokenKey1()), generations));
        everRegistered = true;
    }

    /** The data port's address (with the real port when bound to port 0). */
    public InetSocketAddress address() {
        return server.localAddress();
    }

    /** The host name this datanode advertises to the namenode (and through it to clients). */
    public String advertisedHost() {
        return advertisedHost;
    }

    /** The id the namenode granted, or -1 while not registered. */
    public int datanodeId() {
        return link.datanodeId();
    }

    /** True while registered with the namenode. */
    public boolean isRegistered() {
        return link.isRegistered();
    }

    /** Waits until registered; true when registered within {@code timeout}. */
    public boolean awaitRegistered(Duration timeout) throws InterruptedException {
        return link.awaitRegistered(timeout);
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

    /** The block size the namenode assigned, or -1 before the first registration. */
    public int blockSize() {
        Registration r = service.registration();
        return r == null ? -1 : r.blockSize();
    }

    /** Blocks this datanode offers (capacity / block size), or -1 before the first registration. */
    public long capacityBlocks() {
        Registration r = service.registration();
        return r == null ? -1 : (long) r.blocksPerRegion() * regionCount();
    }

    /** Counters of the block service. */
    public DatanodeMetrics metrics() {
        return metrics;
    }

    /**
     * Stops cleanly: tells the namenode (DEREGISTER_DATANODE, waiting at most 2 s for its answer,
     * saying whether the data is kept), then stops heartbeats and requests, closes the data port, and
     * deletes the region files unless {@code tarn.datanode.dram.keep} is set. Data in direct memory is
     * never kept.
     */
    @Override
    public void close() {
        stop(!config.get(TarnKeys.DRAM_KEEP), true);
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
        if (link != null) {
            if (clean) {
                // Before the data port closes, so the namenode stops handing out blocks here first.
                link.deregister(!deleteFiles && storage.backing() == DramMode.MMAP, DEREGISTER_WAIT);
            }
            link.close();
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

    @Override
    public String toString() {
        return "DramDatanode{" + storage.storageId() + (server != null ? " at " + server.localAddress() : "") + "}";
    }
}
