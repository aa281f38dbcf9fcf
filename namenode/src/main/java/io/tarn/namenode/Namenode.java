package io.tarn.namenode;

import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.ConfigException;
import io.tarn.common.config.ExpiringDirectories;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.journal.EditLog;
import io.tarn.namenode.journal.JournalCheckpoint;
import io.tarn.namenode.journal.JournalEditLog;
import io.tarn.namenode.journal.JournalMeta;
import io.tarn.namenode.journal.NamespaceJournal;
import io.tarn.namenode.namespace.NamespaceReplay;
import io.tarn.namenode.security.Callers;
import io.tarn.replication.Mode;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.ReplicationHost;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A running namenode: the {@link NamenodeService} bound to an RPC server, plus one background
 * thread that marks silent datanodes dead and recovers expired leases.
 *
 * <p>The namenode's lifecycle lives here, apart from the service's dispatch: with several
 * namenodes, the {@link StartupGate} is shut before the server is bound, the {@link PeerLinks} to
 * the other namenodes start once it is, the directory tree is copied over them, and then the gate
 * opens; {@link #close()} stops the links, the server and the background thread.
 *
 * <p>Start one with {@link #start(TarnConfig)} (own transport) or
 * {@link #start(TarnConfig, Transport)} (shared transport, left open by {@link #close()}). It
 * listens on {@code tarn.namenode.bind}, or else on the host and port of
 * {@code tarn.namenode.address}; port 0 picks a free port, see {@link #address()}. Several namenodes
 * can run in one JVM (no static state).
 */
public final class Namenode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Namenode.class);
    private final AtomicBoolean closed = new AtomicBoolean();

    /** The service of a namenode on its own; null for a member of a group, whose {@link #group} has it. */
    private final NamenodeService service;
    /** The group this namenode is a member of, or null. */
    private final NamenodeGroup group;
    private final Transport transport;
    private final boolean ownsTransport;
    private final RpcServer server;
    private final ScheduledExecutorService background;
    /** The namespace journal, or null with tarn.namenode.journal = none. */
    private final NamespaceJournal journal;
    /** Writes the journal's checkpoints, or null without a journal. */
    private final Checkpointer checkpointer;
    /** A journal directory made for this run only (no directory set, port 0), deleted on close; else null. */
    private volatile Path temporaryJournalDir;

    private Namenode(NamenodeService service, Transport transport, boolean ownsTransport, RpcServer server,
                     ScheduledExecutorService background, NamespaceJournal journal, Checkpointer checkpointer) {
        this(service, null, transport, ownsTransport, server, background, journal, checkpointer);
    }

    private Namenode(NamenodeService service, NamenodeGroup group, Transport transport, boolean ownsTransport,
                     RpcServer server, ScheduledExecutorService background, NamespaceJournal journal,
                     Checkpointer checkpointer) {
        this.group = group;
        this.journal = journal;
        this.checkpointer = checkpointer;
        this.service = service;
        this.transport = transport;
        this.ownsTransport = ownsTransport;
        this.server = server;
        this.background = background;
    }

    /**
     * Starts a namenode with its own transport (closed with the namenode), whose I/O threads poll
     * for {@code tarn.namenode.poll} after their last work before they sleep.
     */
    public static Namenode start(TarnConfig config) throws IOException {
        Transport transport = Transports.create(config,
                TimeUnit.MICROSECONDS.toNanos(config.get(TarnKeys.NAMENODE_POLL)));
        try {
            return start(config, transport, Clock.system(), true);
        } catch (IOException | RuntimeException e) {
            transport.close();
            throw e;
        }
    }

    /** Starts a namenode on a shared transport, which {@link #close()} leaves open. */
    public static Namenode start(TarnConfig config, Transport transport) throws IOException {
        return start(config, transport, Clock.system(), false);
    }

    /** Like {@link #start(TarnConfig, Transport)} with an explicit clock (tests drive leases and liveness with it). */
    public static Namenode start(TarnConfig config, Transport transport, Clock clock) throws IOException {
        return start(config, transport, clock, false);
    }

    private static Namenode start(TarnConfig config, Transport transport, Clock clock, boolean ownsTransport)
            throws IOException {
        long leaseTimeout = config.get(TarnKeys.LEASE_TIMEOUT);
        long datanodeTimeout = config.get(TarnKeys.DATANODE_TIMEOUT);
        Partitioning partitions = Partitioning.of(config);
        List<HostPort> members = config.namenodeGroups().get(partitions.partition());
        if (members.size() > 1) {
            return startMember(config, transport, clock, ownsTransport, partitions, members);
        }
        Path journalDir = null;
        JournalMeta meta = null;
        boolean temporary = false;
        if (config.get(TarnKeys.NAMENODE_JOURNAL) == NamespaceJournalMode.DISK) {
            int port = bindAddress(config).getPort();
            temporary = port == 0 && config.get(TarnKeys.NAMENODE_JOURNAL_DIR).isBlank();
            journalDir = temporary ? Files.createTempDirectory("tarn-namenode-")
                    : journalDirectory(config, partitions, port);
            if (temporary) {
                LOG.warn("Namespace journal in {}, made for this run and deleted when it stops: a namenode on port 0 "
                        + "with no {} keeps no namespace across restarts", journalDir,
                        TarnKeys.NAMENODE_JOURNAL_DIR.name());
            }
            try {
                meta = JournalMeta.loadOrCreate(journalDir, partitions.partition(), partitions.count());
            } catch (IOException | RuntimeException e) {
                if (temporary) {
                    deleteTree(journalDir);
                }
                throw e;
            }
        }
        BlockTokens tokens = blockTokens(config, meta);
        JournalEditLog log = meta == null ? null : new JournalEditLog();
        NamenodeService service = new NamenodeService(clock, config.getInt(TarnKeys.BLOCK_SIZE), leaseTimeout,
                datanodeTimeout, tokens, partitions, config.get(TarnKeys.REPLICATION_DEFAULT),
                log == null ? EditLog.NONE : log);
        service.allocator().groups().replaceAfter(config.get(TarnKeys.DATANODE_REPLACE_AFTER));
        service.datanodes().addressClaimGrace(2 * config.get(TarnKeys.HEARTBEAT_INTERVAL));
        service.audit(config.get(TarnKeys.NAMENODE_AUDIT));
        service.expireDirectories(ExpiringDirectories.parse(config.get(TarnKeys.NAMENODE_EXPIRE_DIRS)));
        service.callers(callers(config));
        service.datanodes().expireAfter(config.get(TarnKeys.DATANODE_EXPIRY),
                config.get(TarnKeys.DATANODE_REPLACE_AFTER));
        NamespaceJournal journal = null;
        Checkpointer checkpointer = null;
        try {
            if (log != null) {
                long covered = JournalCheckpoint.list(journalDir).stream().mapToLong(Long::longValue).max().orElse(0);
                journal = openJournal(service, journalDir, meta, log);
                int blockSize = config.getInt(TarnKeys.BLOCK_SIZE);
                int replication = config.get(TarnKeys.REPLICATION_DEFAULT);
                checkpointer = new Checkpointer(service, journal, () -> new NamenodeService(Clock.system(), blockSize,
                        leaseTimeout, datanodeTimeout, tokens, partitions, replication),
                        config.get(TarnKeys.NAMENODE_CHECKPOINT_INTERVAL),
                        config.get(TarnKeys.NAMENODE_CHECKPOINT_RECORDS), covered);
            }
            Namenode nn = serve(config, transport, clock, ownsTransport, service, leaseTimeout, datanodeTimeout,
                    journal, checkpointer);
            if (temporary) {
                nn.temporaryJournalDir = journalDir;
            }
            if (checkpointer != null) {
                checkpointer.start();
            }
            return nn;
        } catch (IOException | RuntimeException e) {
            if (checkpointer != null) {
                checkpointer.close();
            }
            if (journal != null) {
                journal.close();
            }
            if (temporary) {
                deleteTree(journalDir);
            }
            throw e;
        }
    }

    /**
     * Starts a member of its partition's replicated group ({@link NamenodeGroup}): the group's journal
     * (its replication journal) in this member's journal directory, the token key of this member in
     * its meta file beside it.
     */
    private static Namenode startMember(TarnConfig config, Transport transport, Clock clock, boolean ownsTransport,
                                       Partitioning partitions, List<HostPort> members) throws IOException {
        if (config.get(TarnKeys.NAMENODE_JOURNAL) != NamespaceJournalMode.DISK) {
            throw new ConfigException("a replicated namenode group keeps its namespace in the group's journal: "
                    + TarnKeys.NAMENODE_JOURNAL + " must be disk");
        }
        int p = partitions.partition();
        int member = config.get(TarnKeys.NAMENODE_MEMBER);
        InetSocketAddress bindAddress = bindAddress(config);
        boolean temporary = bindAddress.getPort() == 0 && config.get(TarnKeys.NAMENODE_JOURNAL_DIR).isBlank();
        Path dir = temporary ? Files.createTempDirectory("tarn-namenode-")
                : memberDirectory(config, journalDirectory(config, partitions, bindAddress.getPort()), member);
        NamenodeGroup group = null;
        try {
            JournalMeta meta = JournalMeta.loadOrCreate(dir, p, partitions.count());
            BlockTokens tokens = blockTokens(config, meta);
            long leaseTimeout = config.get(TarnKeys.LEASE_TIMEOUT);
            long datanodeTimeout = config.get(TarnKeys.DATANODE_TIMEOUT);
            int blockSize = config.getInt(TarnKeys.BLOCK_SIZE);
            int replication = config.get(TarnKeys.REPLICATION_DEFAULT);
            long replaceAfter = config.get(TarnKeys.DATANODE_REPLACE_AFTER);
            long claimGrace = 2 * config.get(TarnKeys.HEARTBEAT_INTERVAL);
            boolean audit = config.get(TarnKeys.NAMENODE_AUDIT);
            List<ExpiringDirectories.Rule> expiring = ExpiringDirectories.parse(
                    config.get(TarnKeys.NAMENODE_EXPIRE_DIRS));
            Callers callers = callers(config);
            long expiry = config.get(TarnKeys.DATANODE_EXPIRY);
            group = new NamenodeGroup(p, member, members, transport, ReplicationHost.Settings.of(config, Mode.IN_ORDER),
                    GroupJournal.directory(dir, p), log -> {
                        NamenodeService s = new NamenodeService(clock, blockSize, leaseTimeout, datanodeTimeout,
                                tokens, partitions, replication, log);
                        s.allocator().groups().replaceAfter(replaceAfter);
                        s.datanodes().addressClaimGrace(claimGrace);
                        s.audit(audit);
                        s.expireDirectories(expiring);
                        s.callers(callers);
                        s.datanodes().expireAfter(expiry, replaceAfter);
                        return s;
                    }, maintenancePeriod(leaseTimeout, datanodeTimeout), config.get(TarnKeys.RPC_TIMEOUT));
            RpcServer server = transport.bind(bindAddress, group);
            Namenode nn = new Namenode(null, group, transport, ownsTransport, server, null, null, null);
            if (temporary) {
                nn.temporaryJournalDir = dir;
            }
            LOG.info("Namenode {} of {}, member {} of its group, listening on {} (transport {}, block size {} bytes)",
                    p, partitions.count(), member, server.localAddress(), transport.name(), blockSize);
            return nn;
        } catch (IOException | RuntimeException e) {
            if (group != null) {
                group.close();
            }
            if (temporary) {
                deleteTree(dir);
            }
            throw e;
        }
    }

    /**
     * A group member's journal directory: with tarn.namenode.journal.dir set, its subdirectory
     * {@code member-<m>}, so that members on one host (tarn start -r 3) never share one; else the
     * port's own directory.
     */
    static Path memberDirectory(TarnConfig config, Path journalDir, int member) {
        return config.get(TarnKeys.NAMENODE_JOURNAL_DIR).isBlank() ? journalDir
                : journalDir.resolve("member-" + member);
    }

    /** How often maintenance runs: often enough that expiry happens within a quarter timeout of its deadline. */
    static long maintenancePeriod(long leaseTimeout, long datanodeTimeout) {
        return Math.max(10, Math.min(1_000, Math.min(leaseTimeout, datanodeTimeout) / 4));
    }

    /**
     * Where this namenode journals: tarn.namenode.journal.dir, in which each of several namenodes
     * takes a subdirectory {@code namenode-<partition>}; when it is empty,
     * {@code ${java.io.tmpdir}/tarn-namenode-<port>}, this namenode's port, so that namenodes of
     * different clusters on one host never share one and a restart on the same port finds it again.
     */
    static Path journalDirectory(TarnConfig config, Partitioning partitions, int port) {
        String dir = config.get(TarnKeys.NAMENODE_JOURNAL_DIR);
        if (dir.isBlank()) {
            return Path.of(System.getProperty("java.io.tmpdir"), "tarn-namenode-" + port);
        }
        return partitions.count() > 1 ? Path.of(dir, "namenode-" + partitions.partition()) : Path.of(dir);
    }

    /** Deletes a directory made for one run, with what is in it; failures are only logged. */
    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.warn("Cannot delete {}: {}", p, e.toString());
                }
            });
        } catch (IOException e) {
            LOG.warn("Cannot delete the temporary journal {}: {}", dir, e.toString());
        }
    }

    /**
     * Replays the journal into the new service's empty namespace and registry (before anything is
     * served, so no heartbeat meets a half-built registry), then sends every later record to it.
     */
    private static NamespaceJournal openJournal(NamenodeService service, Path dir, JournalMeta meta,
                                                JournalEditLog log) throws IOException {
        long start = System.nanoTime();
        NamespaceReplay replay = service.namespace().replay();
        Partitioning p = service.partitioning();
        long checkpoint = JournalCheckpoint.load(dir, meta.namespaceId(), replay);
        long fromCheckpoint = replay.applied();
        NamespaceJournal journal = NamespaceJournal.open(dir, p.partition(), p.count(), checkpoint, replay,
                NamespaceJournal.Settings.DEFAULT);
        try {
            replay.finish();
            log.attach(journal);
            if (journal.lastSeq() == 0) {
                service.namespace().recordRoot();
            }
            if (checkpoint > 0) {
                LOG.info("Checkpoint of records 1..{} loaded ({} records); journal records {}..{} replayed after it",
                        checkpoint, fromCheckpoint, checkpoint + 1, journal.lastSeq());
            }
        } catch (RuntimeException e) {
            journal.close();
            throw e;
        }
        service.journal(journal);
        service.datanodes().startServing();
        LOG.info("Namespace restored from {} in {} ms: {} record(s) applied, {} skipped; {} files, {} directories, "
                        + "{} datanode(s) awaiting registration", dir, (System.nanoTime() - start) / 1_000_000,
                replay.applied(), replay.skipped(), service.namespace().fileCount(),
                service.namespace().directoryCount(), service.datanodes().size());
        return journal;
    }

    /** How long a journaled namenode waits at start-up for namenode 0 to hand its directory tree. */
    static final long COORDINATOR_WAIT_MS = 60_000;

    private static Namenode serve(TarnConfig config, Transport transport, Clock clock, boolean ownsTransport,
                                  NamenodeService service, long leaseTimeout, long datanodeTimeout,
                                  NamespaceJournal journal, Checkpointer checkpointer) throws IOException {
        InetSocketAddress bindAddress = bindAddress(config);
        long rpcTimeout = config.get(TarnKeys.RPC_TIMEOUT);
        StartupGate startup = service.startup();
        startup.shut();
        RpcServer server = transport.bind(bindAddress, service);
        PeerLinks links = service.links();
        links.start(transport, rpcTimeout, journal == null ? Durability.NONE : service::durable);
        if (links.coordinator() != null) {
            links.coordinator().recover(); // queued before any client's directory change can be
        }
        if (startup.starting()) {
            try {
                if (journal == null) {
                    links.copyDirectoryTree(rpcTimeout);
                } else if (!service.partitioning().isCoordinator()) {
                    links.takeCoordinatorTree(rpcTimeout, Math.max(COORDINATOR_WAIT_MS, rpcTimeout));
                }
                // else: the coordinator's journal holds every directory; it takes no one's tree
            } catch (IOException | RuntimeException e) {
                links.stop();
                server.close();
                throw e;
            } finally {
                startup.open(service::handle);
            }
        }
        ScheduledExecutorService background = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tarn-namenode-maintenance-" + server.localAddress().getPort());
            t.setDaemon(true);
            return t;
        });
        long period = maintenancePeriod(leaseTimeout, datanodeTimeout);
        background.scheduleWithFixedDelay(() -> runMaintenance(service), period, period, TimeUnit.MILLISECONDS);
        Partitioning partitioning = service.partitioning();
        LOG.info("Namenode {} of {} listening on {} (transport {}, block size {} bytes, lease timeout {} ms, "
                        + "datanode timeout {} ms)", partitioning.partition(), partitioning.count(),
                server.localAddress(), transport.name(), service.blockSize(), leaseTimeout, datanodeTimeout);
        return new Namenode(service, transport, ownsTransport, server, background, journal, checkpointer);
    }

    /**
     * The block token issuer: the journal's master key (a random one without a journal), with the
     * configured lifetime and rotation.
     */
    private static BlockTokens blockTokens(TarnConfig config, JournalMeta meta) {
        long lifetime = config.get(TarnKeys.SECURITY_BLOCK_TOKEN_LIFETIME);
        long rotation = config.get(TarnKeys.SECURITY_BLOCK_KEY_ROTATION);
        try {
            return meta == null ? BlockTokens.random(lifetime, rotation) : new BlockTokens(meta.tokenKey0(),
                    meta.tokenKey1(), lifetime, rotation, System::currentTimeMillis);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(TarnKeys.SECURITY_BLOCK_TOKEN_LIFETIME + " and "
                    + TarnKeys.SECURITY_BLOCK_KEY_ROTATION + ": " + e.getMessage());
        }
    }

    /**
     * Who callers are, from the tarn.security.* keys. Without authentication no caller has a proven
     * name, so nothing can be checked: said at startup.
     */
    private static Callers callers(TarnConfig config) {
        Callers callers = Callers.of(config);
        if (callers.enabled() && config.get(TarnKeys.SECURITY_AUTHENTICATION) == AuthenticationMode.NONE) {
            LOG.info("Namenode permissions not checked: {} is none, so no caller has a proven name",
                    TarnKeys.SECURITY_AUTHENTICATION);
        } else {
            LOG.info("Namenode {}", callers.describe());
        }
        return callers;
    }

    private static void runMaintenance(NamenodeService service) {
        try {
            service.runMaintenance();
        } catch (RuntimeException e) {
            // Keep the periodic task alive: a thrown exception would cancel every later run.
            LOG.error("Namenode maintenance failed", e);
        }
    }

    /** tarn.namenode.bind, or this namenode's entry (tarn.namenode.partition) of tarn.namenode.address. */
    static InetSocketAddress bindAddress(TarnConfig config) {
        String bind = config.get(TarnKeys.NAMENODE_BIND);
        HostPort hp = bind.isEmpty() ? config.namenodeGroups().get(config.get(TarnKeys.NAMENODE_PARTITION))
                .get(config.get(TarnKeys.NAMENODE_MEMBER)) : HostPort.parse(bind);
        return hp.isWildcard() ? new InetSocketAddress(hp.port()) : new InetSocketAddress(hp.host(), hp.port());
    }

    /** The address the namenode listens on (with the real port when port 0 was configured). */
    public InetSocketAddress address() {
        return server.localAddress();
    }

    /** Open connections to this namenode: clients' (two each while they make blocking calls) and datanodes'. */
    public int connectionCount() {
        return server.connectionCount();
    }

    /**
     * The request handler and the state behind it; for a member of a group, its current incarnation's
     * (served only while it leads).
     */
    public NamenodeService service() {
        return group != null ? group.service() : service;
    }

    /** True unless this is a member of a replicated group that does not lead it now. */
    public boolean serving() {
        return group == null || group.leading();
    }

    /** The replicated group this namenode is a member of, or null. */
    NamenodeGroup group() {
        return group;
    }

    public long fileCount() {
        return service().namespace().fileCount();
    }

    public long directoryCount() {
        return service().namespace().directoryCount();
    }

    public int datanodeCount() {
        return service().datanodes().size();
    }

    /**
     * Writes a checkpoint of the namespace journal now (as the background does when one is due)
     * and returns the journal record it covers.
     *
     * @throws IllegalStateException without a journal (tarn.namenode.journal = none)
     */
    public long checkpoint() throws IOException {
        if (checkpointer == null) {
            throw new IllegalStateException(group != null ? "a member of a namenode group checkpoints through its "
                    + "group's journal (tarn.replication.checkpoint.interval)"
                    : "this namenode keeps no journal (tarn.namenode.journal = none)");
        }
        return checkpointer.checkpoint();
    }

    /** Runs the background checks now (datanode liveness, lease expiry), e.g. after advancing a test clock. */
    public void runMaintenance() {
        service().runMaintenance();
    }

    /**
     * Stops serving: closes the server, the background thread and, when owned, the transport.
     * Closing again does nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (background != null) {
            background.shutdownNow();
        }
        if (service != null) {
            service.links().stop();
        }
        try {
            server.close();
        } finally {
            if (group != null) {
                group.close();
            }
            if (ownsTransport) {
                transport.close();
            }
            if (checkpointer != null) {
                checkpointer.close();
            }
            if (journal != null) {
                journal.close();
            }
            Path temporary = temporaryJournalDir;
            if (temporary != null) {
                deleteTree(temporary);
            }
        }
        try {
            if (background != null && !background.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("Namenode maintenance thread did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("Namenode on {} closed", server.localAddress());
    }
}
