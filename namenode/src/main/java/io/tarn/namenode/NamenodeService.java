package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.AdoptRequest;
import io.tarn.common.protocol.NamenodeProtocol.AdoptUndoRequest;
import io.tarn.common.protocol.NamenodeProtocol.AppendRequest;
import io.tarn.common.protocol.NamenodeProtocol.BlockRefs;
import io.tarn.common.protocol.NamenodeProtocol.CloseRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.DeleteRequest;
import io.tarn.common.protocol.NamenodeProtocol.DirMkdirRequest;
import io.tarn.common.protocol.NamenodeProtocol.FreeBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.AllocateBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListRequest;
import io.tarn.common.protocol.NamenodeProtocol.MkdirsRequest;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenewLeaseRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.SyncRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.blocks.StorageId;
import io.tarn.namenode.lease.LeaseManager;
import io.tarn.namenode.namespace.FileMove;
import io.tarn.namenode.namespace.FileService;
import io.tarn.namenode.namespace.FileTable;
import io.tarn.namenode.namespace.Inode;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The namenode's request handler: decodes each request, runs it against the namespace, file service
 * and datanode registry, and answers.
 *
 * <p>Runs on transport I/O threads and never blocks (every operation is lock-free or holds a
 * per-file, per-datanode or rare structure lock for a short, bounded time). Domain errors are
 * answered with their code and a message naming the path or datanode; malformed bodies propagate as
 * {@link io.tarn.common.protocol.MalformedMessageException} so the transport answers
 * MALFORMED_REQUEST and drops the connection. Also usable without a transport: tests and in-process
 * callers may call the typed methods directly.
 */
public final class NamenodeService implements RpcHandler {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeService.class);

    private final Clock clock;
    private final int blockSize;
    private final long startedAt;
    private final BlockTokens tokens;
    private final LeaseManager leases;
    private final DatanodeRegistry datanodes;
    private final BlockAllocator allocator;
    private final Namespace namespace;
    private final FileService fileService;
    private final LongAdder operations = new LongAdder();
    private final Partitioning partitioning;
    private volatile DirectoryCoordinator coordinator;
    private volatile FileMover mover;
    /** Several namenodes: a client per other namenode (null at this one's index), set at start. */
    private volatile io.tarn.rpc.RpcClient[] peers;
    /** Several namenodes: true from start until the directory tree is copied from another one. */
    private volatile boolean starting;
    /** Directory changes from the coordinator that arrived while starting, applied once the tree is in. */
    private final List<RpcRequest> parked = new ArrayList<>();

    /** A single namenode (partition 0 of 1); see the full constructor. */
    public NamenodeService(Clock clock, int blockSize, long leaseTimeoutMs, long datanodeTimeoutMs,
                           BlockTokens tokens) {
        this(clock, blockSize, leaseTimeoutMs, datanodeTimeoutMs, tokens,
                Partitioning.single(new HostPort("127.0.0.1", 0)));
    }

    /**
     * @param blockSize        bytes per block ({@code tarn.blocksize})
     * @param leaseTimeoutMs    {@code tarn.namenode.lease.timeout}
     * @param datanodeTimeoutMs {@code tarn.namenode.datanode.timeout}
     * @param tokens           the cluster's block token key, handed to datanodes when they register
     * @param partitioning     which partition of the namespace this namenode serves
     */
    public NamenodeService(Clock clock, int blockSize, long leaseTimeoutMs, long datanodeTimeoutMs,
                           BlockTokens tokens, Partitioning partitioning) {
        this.clock = clock;
        this.blockSize = blockSize;
        this.startedAt = clock.millis();
        this.tokens = tokens;
        this.partitioning = partitioning;
        this.leases = new LeaseManager(clock, leaseTimeoutMs);
        this.datanodes = new DatanodeRegistry(blockSize, clock, datanodeTimeoutMs);
        this.allocator = new BlockAllocator(datanodes);
        FileTable table = new FileTable(partitioning.partition());
        this.namespace = new Namespace(clock, blockSize, table, allocator, leases, partitioning);
        this.fileService = new FileService(clock, table, allocator, datanodes, leases, tokens);
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

    @Override
    public void handle(RpcRequest request) {
        operations.increment();
        if (starting && heldWhileStarting(request)) {
            return;
        }
        ByteBuf body = request.body();
        try {
            switch (request.opcode()) {
                case Opcode.GET_FILE -> {
                    Inode entry = namespace.entry(PathRequest.decode(body).path());
                    ByteBuf out = request.response();
                    entry.writeStatus(out);
                    request.send(out);
                }
                case Opcode.CREATE -> {
                    CreateRequest r = CreateRequest.decode(body);
                    if (r.type() == FileType.DIRECTORY && partitioning.count() > 1) {
                        coordinate(request, r.ownership(), r.path(), r.createParents());
                    } else {
                        sendStatus(request, create(r));
                    }
                }
                case Opcode.MKDIRS -> {
                    MkdirsRequest r = MkdirsRequest.decode(body);
                    if (partitioning.count() > 1) {
                        coordinate(request, r.ownership(), r.path(), true);
                    } else {
                        sendStatus(request, namespace.mkdirs(r.path(), r.ownership()));
                    }
                }
                case Opcode.DIR_MKDIR -> {
                    DirMkdirRequest r = DirMkdirRequest.decode(body);
                    sendStatus(request, namespace.applyMkdir(r.parent(), r.name(), r.dirId(), r.ownership(), r.time()));
                }
                case Opcode.APPEND -> {
                    AppendRequest r = AppendRequest.decode(body);
                    sendStatus(request, fileService.reopen(namespace.file(r.path()), r.clientId()));
                }
                case Opcode.SET_ATTR -> {
                    SetAttributesRequest r = SetAttributesRequest.decode(body);
                    try {
                        sendStatus(request, namespace.setAttributes(r));
                    } catch (TarnException e) {
                        if (!atCoordinator(e)) {
                            throw e;
                        }
                        coordinator.setDirectoryAttributes(r).whenComplete((status, x) -> {
                            if (x == null) {
                                sendStatus(request, status);
                            } else {
                                answer(request, x, r.path());
                            }
                        });
                    }
                }
                case Opcode.DIR_SET_ATTR -> sendStatus(request,
                        namespace.applySetAttributes(SetAttributesRequest.decode(body)));
                case Opcode.GET_BLOCK -> {
                    GetBlockRequest r = GetBlockRequest.decode(body);
                    ByteBuf out = request.response();
                    try {
                        NamenodeProtocol.writeBlockRef(out, fileService.getBlock(r.fileId(), r.blockIndex(),
                                r.write(), r.clientId(), r.clientHost(), r.durableSize()));
                    } catch (TarnException | RuntimeException e) {
                        out.release();
                        throw e;
                    }
                    request.send(out);
                }
                case Opcode.GET_PARTITIONS -> {
                    ByteBuf out = request.response();
                    partitionMap().encode(out);
                    request.send(out);
                }
                case Opcode.ALLOCATE_BLOCKS -> {
                    AllocateBlocksRequest r = AllocateBlocksRequest.decode(body);
                    BlockRefs refs = new BlockRefs(fileService.allocateBlocks(r.fileId(), r.first(), r.count(),
                            r.clientId(), r.clientHost(), r.durableSize()));
                    ByteBuf out = request.response();
                    refs.encode(out);
                    request.send(out);
                }
                case Opcode.GET_BLOCKS -> {
                    GetBlocksRequest r = GetBlocksRequest.decode(body);
                    BlockRefs refs = new BlockRefs(fileService.getBlocks(r.fileId(), r.first(), r.count()));
                    ByteBuf out = request.response();
                    refs.encode(out);
                    request.send(out);
                }
                case Opcode.CLOSE -> {
                    CloseRequest r = CloseRequest.decode(body);
                    sendStatus(request, fileService.close(r.fileId(), r.clientId(), r.size()));
                }
                case Opcode.SYNC -> {
                    SyncRequest r = SyncRequest.decode(body);
                    sendStatus(request, fileService.sync(r.fileId(), r.clientId(), r.durableSize()));
                }
                case Opcode.LIST -> {
                    ListRequest r = ListRequest.decode(body);
                    NamenodeProtocol.ListResponse page = namespace.list(r.path(), r.startAfter(), r.max());
                    ByteBuf out = request.response();
                    page.encode(out);
                    request.send(out);
                }
                case Opcode.DELETE -> {
                    DeleteRequest r = DeleteRequest.decode(body);
                    try {
                        namespace.delete(r.path(), r.recursive());
                        request.send(request.response());
                    } catch (TarnException e) {
                        if (!atCoordinator(e)) {
                            throw e;
                        }
                        coordinator.deleteTree(r.path(), r.recursive()).whenComplete((v, x) -> answer(request, x,
                                r.path()));
                    }
                }
                case Opcode.DIR_SEAL -> {
                    namespace.seal(PathRequest.decode(body).path());
                    request.send(request.response());
                }
                case Opcode.DIR_UNSEAL -> {
                    namespace.unseal(PathRequest.decode(body).path());
                    request.send(request.response());
                }
                case Opcode.DIR_DELETE -> {
                    namespace.applyDeleteTree(PathRequest.decode(body).path());
                    request.send(request.response());
                }
                case Opcode.RENAME -> {
                    RenameRequest r = RenameRequest.decode(body);
                    FileMove move;
                    try {
                        move = namespace.rename(r.src(), r.dst());
                    } catch (TarnException e) {
                        if (!atCoordinator(e)) {
                            throw e;
                        }
                        coordinator.renameDirectory(r.src(), r.dst()).whenComplete((v, x) -> answer(request, x,
                                r.src()));
                        break;
                    }
                    if (move == null) {
                        request.send(request.response());
                    } else {
                        moveFile(move).whenComplete((v, e) -> answer(request, e, r.src()));
                    }
                }
                case Opcode.FILE_ADOPT -> {
                    AdoptRequest r = AdoptRequest.decode(body);
                    sendStatus(request, namespace.adopt(r, fileService.adoptedBlocks(r.blocks(),
                            partitioning.partition())));
                }
                case Opcode.FILE_ADOPT_UNDO -> {
                    AdoptUndoRequest r = AdoptUndoRequest.decode(body);
                    namespace.undoAdopt(r.parent(), r.name(), r.fromId());
                    request.send(request.response());
                }
                case Opcode.DIR_SNAPSHOT -> {
                    ByteBuf out = request.response();
                    namespace.snapshot().encode(out);
                    request.send(out);
                }
                case Opcode.WHERE_MOVED -> {
                    ByteBuf out = request.response();
                    out.writeLong(fileService.whereMoved(Wire.readLong(body)));
                    request.send(out);
                }
                case Opcode.FREE_BLOCKS -> {
                    fileService.freeReturned(FreeBlocksRequest.decode(body).blocks());
                    request.send(request.response());
                }
                case Opcode.DIR_RENAME -> {
                    RenameRequest r = RenameRequest.decode(body);
                    namespace.applyRename(r.src(), r.dst());
                    request.send(request.response());
                }
                case Opcode.RENEW_LEASE -> {
                    leases.renew(RenewLeaseRequest.decode(body).clientId());
                    request.send(request.response());
                }
                case Opcode.REGISTER_DATANODE -> {
                    RegisterResponse resp = register(RegisterRequest.decode(body));
                    ByteBuf out = request.response();
                    resp.encode(out);
                    request.send(out);
                }
                case Opcode.HEARTBEAT -> {
                    HeartbeatRequest r = HeartbeatRequest.decode(body);
                    datanodes.heartbeat(r.datanodeId(), new StorageId(r.storageIdHigh(), r.storageIdLow()));
                    request.send(request.response());
                }
                case Opcode.DEREGISTER_DATANODE -> {
                    deregister(DeregisterRequest.decode(body));
                    request.send(request.response());
                }
                case Opcode.CLUSTER_STATUS -> {
                    ByteBuf out = request.response();
                    clusterStatus().encode(out);
                    request.send(out);
                }
                case Opcode.PING -> request.send(request.response());
                default -> request.fail(ErrorCode.UNKNOWN_OPCODE, "the namenode does not serve operation "
                        + Opcode.name(request.opcode()));
            }
        } catch (TarnException e) {
            request.fail(e.code(), e.getMessage());
        }
    }

    /**
     * While the tree is being copied: datanodes and status are served, directory changes from the
     * coordinator wait (they apply on top of the copy), everything else answers RETRY.
     *
     * @return true when the request was parked or answered here
     */
    private boolean heldWhileStarting(RpcRequest request) {
        switch (request.opcode()) {
            case Opcode.PING, Opcode.GET_PARTITIONS, Opcode.CLUSTER_STATUS, Opcode.REGISTER_DATANODE,
                 Opcode.HEARTBEAT, Opcode.DEREGISTER_DATANODE -> {
                return false;
            }
            case Opcode.DIR_MKDIR, Opcode.DIR_DELETE, Opcode.DIR_RENAME, Opcode.DIR_SET_ATTR, Opcode.DIR_SEAL,
                 Opcode.DIR_UNSEAL -> {
                synchronized (parked) {
                    if (starting) {
                        parked.add(request);
                        return true;
                    }
                }
                return false;
            }
            default -> {
                request.fail(ErrorCode.RETRY, partitioning.describe(partitioning.partition())
                        + " is starting: it is copying the directory tree from another namenode");
                return true;
            }
        }
    }

    /** Several namenodes: from now until {@link #copyDirectories}, serve only what needs no directory. */
    void startingUp() {
        starting = partitioning.count() > 1;
    }

    /**
     * Copies the directory tree from a running namenode (the coordinator first), so that a restarted
     * namenode knows every directory before it serves; with none running (the whole cluster is
     * starting) the tree stays empty, as everyone's is. Then applies the directory changes that
     * arrived meanwhile and starts serving. Namenodes keep no disk state, so files this namenode
     * owned before a restart are gone.
     */
    void copyDirectories(long timeoutMs) {
        if (!starting) {
            return;
        }
        try {
            boolean copied = false;
            for (int p = 0; p < peers.length && !copied; p++) {
                if (peers[p] == null) {
                    continue; // this namenode
                }
                try {
                    NamenodeProtocol.DirectorySnapshot snapshot = peers[p].call(Opcode.DIR_SNAPSHOT, b -> { },
                            NamenodeProtocol.DirectorySnapshot::decode).get(timeoutMs,
                            java.util.concurrent.TimeUnit.MILLISECONDS);
                    namespace.install(snapshot);
                    LOG.info("Copied {} directories from {}", snapshot.directories().size(), partitioning.describe(p));
                    copied = true;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    LOG.debug("No directory tree from {}: {}", partitioning.describe(p), cause.toString());
                } catch (TarnException e) {
                    LOG.error("Could not install the directory tree of {}: {}", partitioning.describe(p),
                            e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (!copied) {
                LOG.info("No other namenode serves a directory tree yet: starting with an empty one");
            }
        } finally {
            serve();
        }
    }

    /** Ends {@link #startingUp}: applies the parked directory changes in order, then serves everything. */
    private void serve() {
        List<RpcRequest> replay;
        synchronized (parked) {
            starting = false;
            replay = new ArrayList<>(parked);
            parked.clear();
        }
        for (RpcRequest r : replay) {
            try {
                handle(r);
            } catch (RuntimeException e) {
                LOG.warn("{} parked while starting failed", Opcode.name(r.opcode()), e);
                r.fail(ErrorCode.INTERNAL, Opcode.name(r.opcode()) + " failed on the server: " + e);
            }
        }
    }

    /**
     * True when the namespace sent a directory change to the coordinator ({@code e} is
     * AT_COORDINATOR) and this namenode is it: the coordinator runs it (after any creation of that
     * directory it is running), other namenodes pass the code to the client, which resends there.
     */
    private boolean atCoordinator(TarnException e) {
        return e.code() == ErrorCode.AT_COORDINATOR && coordinator != null;
    }

    private static void sendStatus(RpcRequest request, FileStatus status) {
        ByteBuf out = request.response();
        NamenodeProtocol.writeStatus(out, status);
        request.send(out);
    }

    /**
     * With several namenodes, connects to the others over {@code transport} (one client per peer,
     * shared by everything below) and starts partition 0's directory coordinator, and on every
     * namenode the mover of files renamed to a name another namenode owns (which also gives freed
     * foreign blocks back to their home).
     */
    void startCoordinator(Transport transport, long timeoutMs) {
        if (partitioning.count() > 1) {
            peers = partitioning.connectOthers(transport);
            mover = new FileMover(partitioning, namespace, fileService, peers);
            allocator.returnForeignBlocksTo(mover::returnHome);
            if (partitioning.isCoordinator()) {
                coordinator = new DirectoryCoordinator(partitioning, namespace, clock, peers, timeoutMs);
            }
        }
    }

    void stopCoordinator() {
        if (coordinator != null) {
            coordinator.close();
        }
        if (peers != null) {
            for (io.tarn.rpc.RpcClient peer : peers) {
                if (peer != null) {
                    peer.close();
                }
            }
        }
    }

    /** Carries out a file rename that moves the file to another namenode. */
    private java.util.concurrent.CompletableFuture<Void> moveFile(FileMove move) {
        FileMover m = mover;
        if (m == null) {
            namespace.abortMove(move);
            return java.util.concurrent.CompletableFuture.failedFuture(new TarnException(ErrorCode.NOT_SUPPORTED,
                    "cannot rename '" + move.srcPath() + "' to '" + move.targetPath() + "': this namenode was started "
                            + "without a transport to the other namenodes"));
        }
        return m.move(move);
    }

    /** A directory creation with several namenodes: partition 0 runs it everywhere, the others refuse. */
    private void coordinate(RpcRequest request, Ownership ownership, String path, boolean parents)
            throws TarnException {
        if (coordinator == null) {
            throw new TarnException(ErrorCode.WRONG_PARTITION, "directories are created through "
                    + partitioning.describe(0) + ", not " + partitioning.describe(partitioning.partition()));
        }
        coordinator.mkdirs(path, ownership, parents).whenComplete((status, e) -> {
            if (e == null) {
                sendStatus(request, status);
            } else {
                answer(request, e, path);
            }
        });
    }

    /** Answers a request the coordinator ran: empty on success, else the failure's code. */
    private static void answer(RpcRequest request, Throwable e, String path) {
        if (e == null) {
            request.send(request.response());
            return;
        }
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                ? e.getCause() : e;
        if (cause instanceof TarnException t) {
            request.fail(t.code(), t.getMessage());
        } else {
            LOG.error("operation on {} with the other namenodes failed", path, cause);
            request.fail(ErrorCode.INTERNAL, "operation on " + path + " with the other namenodes failed: " + cause);
        }
    }

    /** GET_PARTITIONS: every namenode of the cluster, and which one this is. */
    public NamenodeProtocol.PartitionMap partitionMap() {
        List<String> addresses = new ArrayList<>(partitioning.count());
        for (HostPort hp : partitioning.namenodes()) {
            addresses.add(hp.toString());
        }
        return new NamenodeProtocol.PartitionMap(partitioning.partition(), addresses);
    }

    /** CREATE: a file or directory. */
    public FileStatus create(CreateRequest r) throws TarnException {
        return namespace.create(r.path(), r.type(), r.overwrite(), r.createParents(), r.storageClass(), r.clientId(),
                r.ownership());
    }

    /**
     * REGISTER_DATANODE: registers the datanode's share of regions and answers with the datanode id,
     * block size and token key. WRONG_PARTITION when the share is not this partition's.
     */
    public RegisterResponse register(RegisterRequest r) throws TarnException {
        checkRegionShare(r);
        DatanodeRegistry.Registration reg = datanodes.register(r);
        return new RegisterResponse(reg.datanode().id(), blockSize, tokens.key0(), tokens.key1(),
                reg.resetGenerations());
    }

    /**
     * Partition p of N manages the regions r of every datanode with r mod N = p, so that the owner of
     * any block follows from its region id alone. A datanode whose namenode list differs from the
     * cluster's (other order, other count) would break that; it is refused until its configuration
     * matches.
     */
    private void checkRegionShare(RegisterRequest r) throws TarnException {
        int p = partitioning.partition();
        int n = partitioning.count();
        if (r.firstRegion() != p || r.regionStride() != n) {
            throw new TarnException(ErrorCode.WRONG_PARTITION, "datanode " + r.host() + ":" + r.port()
                    + " registered its regions " + r.firstRegion() + ", " + r.firstRegion() + " + " + r.regionStride()
                    + ", .. with " + partitioning.describe(p) + ", which manages the regions r with r mod " + n + " = "
                    + p + ": the datanode's tarn.namenode.address must list the cluster's " + n
                    + " namenode(s) in the same order");
        }
    }

    /**
     * DEREGISTER_DATANODE: a datanode stopping cleanly. It is dead at once (no allocation, its blocks
     * answer DATANODE_DEAD) and, unless it kept its data, its blocks are lost (DATA_LOST).
     */
    public void deregister(DeregisterRequest r) throws TarnException {
        datanodes.deregister(r.datanodeId(), new StorageId(r.storageIdHigh(), r.storageIdLow()), r.dataKept());
    }

    /** CLUSTER_STATUS. */
    public ClusterStatus clusterStatus() {
        List<DatanodeStatus> list = new ArrayList<>();
        for (DatanodeInfo dn : datanodes.all()) {
            list.add(new DatanodeStatus(dn.id(), dn.host(), dn.port(), dn.storageClass(), wireState(dn),
                    dn.capacityBlocks(), dn.freeBlocks(), datanodes.silenceMs(dn), dn.shortCircuit()));
        }
        return new ClusterStatus(clock.millis() - startedAt, namespace.fileCount(), namespace.directoryCount(),
                operations(), blockSize, list);
    }

    private static int wireState(DatanodeInfo dn) {
        switch (dn.liveness()) {
            case ALIVE: return DatanodeStatus.ALIVE;
            case STOPPED: return DatanodeStatus.STOPPED;
            default: return DatanodeStatus.SILENT;
        }
    }

    /**
     * Background work, called periodically from one thread: marks silent datanodes dead and
     * recovers expired leases.
     */
    public void runMaintenance() {
        datanodes.checkLiveness();
        fileService.expireForwards();
        for (LeaseManager.Expired e : leases.expire()) {
            for (long fileId : e.fileIds()) {
                fileService.recover(fileId, e.clientId(), e.silenceMs());
            }
        }
    }
}
