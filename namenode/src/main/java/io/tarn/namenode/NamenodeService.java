package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.ExpiringDirectories;
import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Replication;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatResponse;
import io.tarn.common.protocol.AdminProtocol.JournalHealth;
import io.tarn.common.protocol.AdminProtocol.NamenodeGroupStatus;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.PartitionMap;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.blocks.BlockGroups;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.blocks.StorageId;
import io.tarn.namenode.journal.EditLog;
import io.tarn.namenode.journal.JournalFailedException;
import io.tarn.namenode.journal.NamespaceJournal;
import io.tarn.namenode.journal.SequencedLog;
import io.tarn.namenode.lease.LeaseManager;
import io.tarn.namenode.namespace.FileService;
import io.tarn.namenode.namespace.BlockHealth;
import io.tarn.namenode.namespace.FileTable;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.namenode.security.Callers;
import io.tarn.namenode.namespace.RetryCache;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The namenode's request handler: owns the namespace, file service and datanode registry, and
 * routes each request to the handler of its audience ({@link Opcode#audience}): clients
 * ({@link ClientHandler}), other namenodes ({@link PeerHandler}), datanodes
 * ({@link DatanodeHandler}) and administration ({@link AdminHandler}). An opcode of no audience is
 * answered UNKNOWN_OPCODE.
 *
 * <p>Runs on transport I/O threads and never blocks (every operation is lock-free or holds a
 * per-file, per-datanode or rare structure lock for a short, bounded time). Routing costs a table
 * load and a call through a final field: no allocation, no lock. Domain errors are answered with
 * their code and a message naming the path or datanode; malformed bodies propagate as
 * {@link MalformedMessageException} so the transport answers MALFORMED_REQUEST and drops the
 * connection. Lifecycle is elsewhere: {@link Namenode} binds it, starts the {@link PeerLinks} and
 * opens the {@link StartupGate}. Also usable without a transport: tests and in-process callers may
 * call the typed methods directly.
 */
public final class NamenodeService implements RpcHandler {
    private final int blockSize;
    private final BlockTokens tokens;
    private final LeaseManager leases;
    private final DatanodeRegistry datanodes;
    private final BlockAllocator allocator;
    private final Namespace namespace;
    private final FileService fileService;
    private final LongAdder operations = new LongAdder();
    private final Partitioning partitioning;
    private final PeerLinks links;
    private final StartupGate startup;
    private final BlockHealth health;
    private final Clock clock;
    private final ClientHandler clients;
    private final PeerHandler peers;
    private final DatanodeHandler datanodeHandler;
    private final AdminHandler admin;
    private final DirectoryExpiry expiry;
    private volatile SequencedLog journal;
    /** Whether client mutations are written to the audit log ({@code tarn.namenode.audit}). */
    private volatile boolean audit = true;
    private volatile long checkpointSeq;
    private volatile long checkpointAt = -1;

    /** A single namenode (partition 0 of 1); see the full constructor. */
    public NamenodeService(Clock clock, int blockSize, long leaseTimeoutMs, long datanodeTimeoutMs,
                           BlockTokens tokens) {
        this(clock, blockSize, leaseTimeoutMs, datanodeTimeoutMs, tokens,
                Partitioning.single(new HostPort("127.0.0.1", 0)));
    }

    /** A namenode whose new files have replication 1 unless asked otherwise; see the full constructor. */
    public NamenodeService(Clock clock, int blockSize, long leaseTimeoutMs, long datanodeTimeoutMs,
                           BlockTokens tokens, Partitioning partitioning) {
        this(clock, blockSize, leaseTimeoutMs, datanodeTimeoutMs, tokens, partitioning, Replication.ONE);
    }

    /**
     * @param blockSize        bytes per block ({@code tarn.blocksize})
     * @param leaseTimeoutMs    {@code tarn.namenode.lease.timeout}
     * @param datanodeTimeoutMs {@code tarn.namenode.datanode.timeout}
     * @param tokens           the cluster's block token key, handed to datanodes when they register
     * @param partitioning     which partition of the namespace this namenode serves
     * @param defaultReplication replication of files whose directories set none ({@code tarn.replication.default})
     */
    public NamenodeService(Clock clock, int blockSize, long leaseTimeoutMs, long datanodeTimeoutMs,
                           BlockTokens tokens, Partitioning partitioning, int defaultReplication) {
        this(clock, blockSize, leaseTimeoutMs, datanodeTimeoutMs, tokens, partitioning, defaultReplication,
                EditLog.NONE);
    }

    /**
     * As the constructor above, recording every mutation of the namespace, the files' contents, the
     * datanode registry and the block groups to {@code log}; answers to mutations (and heartbeats,
     * whose group commands follow from records) wait for the {@linkplain #journal journal}.
     */
    public NamenodeService(Clock clock, int blockSize, long leaseTimeoutMs, long datanodeTimeoutMs,
                           BlockTokens tokens, Partitioning partitioning, int defaultReplication, EditLog log) {
        this.blockSize = blockSize;
        this.clock = clock;
        this.tokens = tokens;
        tokens.issuedBy(partitioning.partition());
        this.partitioning = partitioning;
        this.leases = new LeaseManager(clock, leaseTimeoutMs);
        this.datanodes = new DatanodeRegistry(blockSize, clock, datanodeTimeoutMs);
        // The token key is random at every start: its bits make the epoch of this run's group ids.
        this.allocator = new BlockAllocator(datanodes, new BlockGroups(datanodes, partitioning.partition(),
                (int) (tokens.key0() ^ (tokens.key0() >>> 32))));
        if (log.enabled()) {
            datanodes.recordTo(log);
            allocator.groups().recordTo(log);
        }
        FileTable table = new FileTable(partitioning.partition());
        this.namespace = new Namespace(clock, blockSize, table, allocator, leases, partitioning, defaultReplication,
                log);
        namespace.tokens(tokens);
        this.fileService = new FileService(clock, table, allocator, datanodes, leases, tokens, log);
        this.health = new BlockHealth(table, datanodes);
        datanodes.reportChecker(health::checkReport);
        this.links = new PeerLinks(partitioning, namespace, fileService, allocator, clock);
        this.startup = new StartupGate(partitioning);
        this.admin = new AdminHandler(clock, blockSize, namespace, datanodes, operations, health,
                allocator.groups(), this::journalHealth);
        this.clients = new ClientHandler(partitioning, namespace, fileService, leases, links);
        this.expiry = new DirectoryExpiry(namespace, links);
        this.peers = new PeerHandler(partitioning, namespace, fileService, datanodes);
        this.datanodeHandler = new DatanodeHandler(partitioning, datanodes, allocator.groups(), tokens,
                blockSize);
    }

    public Partitioning partitioning() {
        return partitioning;
    }

    public Namespace namespace() {
        return namespace;
    }

    public FileService files() {
        return fileService;
    }

    public DatanodeRegistry datanodes() {
        return datanodes;
    }

    public BlockAllocator allocator() {
        return allocator;
    }

    public LeaseManager leases() {
        return leases;
    }

    /** Which files have blocks that cannot be read, as of the last scan. */
    public BlockHealth health() {
        return health;
    }

    public BlockTokens tokens() {
        return tokens;
    }

    public int blockSize() {
        return blockSize;
    }

    /** Requests served so far (failed ones included). */
    public long operations() {
        return operations.sum();
    }

    /** The links to the other namenodes, started and stopped by {@link Namenode}. */
    PeerLinks links() {
        return links;
    }

    /** What is served while a namenode of several starts, shut and opened by {@link Namenode}. */
    StartupGate startup() {
        return startup;
    }

    /**
     * From now on answers to mutations wait for {@code j} to force what they recorded
     * ({@link DurableReply}), and mutations are refused while it is full or after it failed. Set
     * once, before serving.
     */
    /** Checks client operations' permissions as {@code callers} says ({@code tarn.security.permissions}). */
    public void callers(Callers callers) {
        clients.callers(callers);
    }

    /** Turns the audit log of client mutations on or off ({@code tarn.namenode.audit}). */
    public void audit(boolean on) {
        this.audit = on;
    }

    /** The directories whose idle subdirectories expire ({@code tarn.namenode.expire.dirs}). */
    public void expireDirectories(List<ExpiringDirectories.Rule> rules) {
        expiry.rules(rules);
    }

    /**
     * Deletes the expired subdirectories now, as the maintenance does on the first partition; the
     * number of deletions started (for tests and tools).
     */
    public int expireNow() {
        return partitioning.partition() == 0 ? expiry.sweep(clock.millis()) : 0;
    }

    void journal(SequencedLog j) {
        this.journal = j;
    }

    /** The newest checkpoint covers records up to {@code seq}, written (or found) at {@code atMillis}. */
    void checkpointed(long seq, long atMillis) {
        this.checkpointAt = atMillis;
        this.checkpointSeq = seq;
    }

    /**
     * Completes once journal record {@code seq} is on disk (at once without a journal, or for 0), or
     * exceptionally with the journal's {@link SequencedLog#failureCode} when it failed.
     */
    CompletableFuture<Void> durable(long seq) {
        SequencedLog j = journal;
        if (j == null || seq == 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        j.whenDurable(seq, () -> done.complete(null), why -> done.completeExceptionally(
                new TarnException(j.failureCode(), readOnlyMessage(why))));
        return done;
    }

    /** A group member's view of its group for CLUSTER_STATUS ({@link NamenodeGroup} sets it), or null. */
    private volatile Supplier<NamenodeGroupStatus> groupStatus;

    void groupStatus(Supplier<NamenodeGroupStatus> status) {
        this.groupStatus = status;
    }

    /** The journal as CLUSTER_STATUS reports it. */
    JournalHealth journalHealth() {
        SequencedLog j = journal;
        if (j == null) {
            return JournalHealth.NONE;
        }
        String failure = j.failure();
        long at = checkpointAt;
        return new JournalHealth(true, j instanceof NamespaceJournal disk ? disk.directory().toString() : j.what(),
                j.lastSeq(), checkpointSeq,
                at < 0 ? -1 : Math.max(0, System.currentTimeMillis() - at), failure == null ? "" : failure,
                groupStatus == null ? null : groupStatus.get());
    }

    /** The namespace journal on disk, or null when the namespace lives in memory only or in a group. */
    public NamespaceJournal journal() {
        return journal instanceof NamespaceJournal disk ? disk : null;
    }

    /** Where the namespace's records become durable (a journal on disk, a group's log), or null. */
    public SequencedLog log() {
        return journal;
    }

    /**
     * The message of NAMESPACE_READ_ONLY for a journal that failed because of {@code why}, which
     * names the journal, the condition and what to do ({@code JournalFiles.reason}).
     */
    static String readOnlyMessage(String why) {
        return "change refused: " + why;
    }

    /**
     * True for a request whose answer must wait for the journal: a client's, datanode's or other
     * namenode's operation that may change what the journal keeps (renewing a lease, heartbeats,
     * reports of unreachable datanodes and an rmdir's seals change nothing it keeps).
     */
    private static boolean journaled(RpcRequest request) {
        int opcode = request.opcode();
        if (Opcode.isReadOnly(opcode) || opcode == Opcode.RENEW_LEASE || opcode == Opcode.HEARTBEAT
                || opcode == Opcode.DATANODE_UNREACHABLE || opcode == Opcode.DIR_SEAL || opcode == Opcode.DIR_UNSEAL) {
            return false;
        }
        if (opcode == Opcode.GET_BLOCK) {
            return GetBlockRequest.isWrite(request.body()); // a read's GET_BLOCK is a lookup
        }
        Audience audience = Opcode.audience(opcode);
        return audience == Audience.CLIENT || audience == Audience.DATANODE || audience == Audience.PEER;
    }

    /** Routes the request to its audience's handler, which runs and answers it. */
    @Override
    public void handle(RpcRequest request) {
        operations.increment();
        if (startup.starting() && startup.holds(request)) {
            return;
        }
        if (request.opcode() == Opcode.ONCE) {
            once(request);
            return;
        }
        if (audit) {
            request = AuditLog.wrap(request, request.opcode(), request.body(), request.body().readerIndex());
        }
        SequencedLog j = journal;
        if (j != null && request.opcode() == Opcode.HEARTBEAT) {
            // Its group commands (create, change) must not reach a datanode before their records are on disk.
            request = new DurableReply(request, j);
        } else if (j != null && journaled(request)) {
            if (refused(j, request)) {
                return;
            }
            request = new DurableReply(request, j);
        }
        dispatch(request);
    }

    /** True when the journal refuses mutations now (failed, or full), after answering {@code request} so. */
    private static boolean refused(SequencedLog j, RpcRequest request) {
        String failed = j.failure();
        if (failed != null) {
            request.fail(j.failureCode(), readOnlyMessage(failed));
            return true;
        }
        if (j.full()) {
            request.fail(ErrorCode.RETRY, "the namenode's journal has " + (j.lastSeq() - j.durableSeq())
                    + " records not yet durable; try again in a moment");
            return true;
        }
        return false;
    }

    /**
     * ONCE: a client's mutation with its client id and call id. A call answered before is answered
     * again from the retry cache; a call being applied now is answered RETRY; any other is applied
     * and its answer kept ({@link OnceRequest}) before it is sent.
     */
    private void once(RpcRequest raw) {
        ByteBuf b = raw.body();
        long clientId = Wire.readLong(b);
        long callId = Wire.readLong(b);
        int opcode = Wire.readUnsignedShort(b);
        if (Opcode.audience(opcode) != Audience.CLIENT || Opcode.isReadOnly(opcode) || opcode == Opcode.ONCE) {
            raw.fail(ErrorCode.INVALID_ARGUMENT, "ONCE carries " + Opcode.name(opcode)
                    + ", which is not a client's mutation");
            return;
        }
        RetryCache cache = namespace.retryCache();
        RetryCache.Key key = new RetryCache.Key(clientId, callId);
        ByteBuf kept = cache.answer(key);
        if (kept != null) {
            ByteBuf response = raw.response();
            response.writeBytes(kept);
            kept.release();
            raw.send(response);
            return;
        }
        if (!cache.begin(key)) {
            raw.fail(ErrorCode.RETRY, Opcode.name(opcode) + " call " + callId + " of this client is being applied; "
                    + "ask again in a moment");
            return;
        }
        SequencedLog j = journal;
        if (j != null && refused(j, raw)) {
            cache.end(key);
            return;
        }
        RpcRequest audited = audit ? AuditLog.wrap(raw, opcode, b, b.readerIndex()) : raw;
        OnceRequest call = new OnceRequest(j != null ? new DurableReply(audited, j) : audited, key, opcode, b.slice(),
                namespace, j);
        try {
            call.run(() -> dispatch(call));
        } catch (RuntimeException | Error e) {
            call.abandon(); // the transport answers what escaped; the call may be sent again
            throw e;
        }
    }

    /** Hands the request to its audience's handler; answers what the handler throws. */
    private void dispatch(RpcRequest request) {
        try {
            Audience audience = Opcode.audience(request.opcode());
            if (audience == null) {
                refuse(request);
                return;
            }
            switch (audience) {
                case CLIENT -> clients.handle(request);
                case PEER -> peers.handle(request);
                case DATANODE -> datanodeHandler.handle(request);
                case ADMIN -> admin.handle(request);
                default -> refuse(request);
            }
        } catch (TarnException e) {
            request.fail(e.code(), e.getMessage(), e.detail());
        } catch (JournalFailedException e) {
            request.fail(e.code(), readOnlyMessage(e.getMessage()));
        }
    }

    /**
     * Answers an operation the namenode does not serve (a datanode's, or a number that is none):
     * UNKNOWN_OPCODE, naming it. Each audience's handler also answers so an opcode it is handed but
     * does not serve.
     */
    static void refuse(RpcRequest request) {
        request.fail(ErrorCode.UNKNOWN_OPCODE, "the namenode does not serve operation "
                + Opcode.name(request.opcode()));
    }

    /** GET_PARTITIONS: every namenode of the cluster, and which one this is. */
    public PartitionMap partitionMap() {
        return clients.partitionMap();
    }

    /** CREATE: a file or directory. */
    public FileStatus create(CreateRequest r) throws TarnException {
        return clients.create(r);
    }

    /**
     * REGISTER_DATANODE: registers the datanode's share of regions and answers with the datanode id,
     * block size and token key. WRONG_PARTITION when the share is not this partition's.
     */
    public RegisterResponse register(RegisterRequest r) throws TarnException {
        return datanodeHandler.register(r);
    }

    /**
     * DEREGISTER_DATANODE: a datanode stopping cleanly. It is dead at once (no allocation, its blocks
     * answer DATANODE_DEAD) and, unless it kept its data, its blocks are lost (DATA_LOST).
     */
    public void deregister(DeregisterRequest r) throws TarnException {
        datanodeHandler.deregister(r);
    }

    /**
     * HEARTBEAT: records it (UNKNOWN_DATANODE when the datanode must register again) and answers the
     * datanode's block group commands.
     */
    public HeartbeatResponse heartbeat(HeartbeatRequest r) throws TarnException {
        datanodes.heartbeat(r.datanodeId(), new StorageId(r.storageIdHigh(), r.storageIdLow()), r.lostRegions());
        return datanodeHandler.heartbeatAnswer(r);
    }

    /** CLUSTER_STATUS. */
    public ClusterStatus clusterStatus() {
        return admin.clusterStatus();
    }

    /**
     * Background work, called periodically from one thread: marks silent datanodes dead, counts
     * the files whose blocks cannot be read when a datanode changed ({@link BlockHealth}), recovers
     * expired leases and, on the first partition, deletes expired directories ({@link DirectoryExpiry}).
     */
    public void runMaintenance() {
        datanodes.checkLiveness();
        namespace.retryCache().expire(clock.millis());
        allocator.groups().repair(clock.millis());
        health.refresh(clock.millis());
        fileService.expireForwards();
        for (LeaseManager.Expired e : leases.expire()) {
            for (long fileId : e.fileIds()) {
                fileService.recover(fileId, e.clientId(), e.silenceMs());
            }
        }
        expireNow();
    }
}
