package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.AllocateBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.AppendRequest;
import io.tarn.common.protocol.NamenodeProtocol.BlockRefs;
import io.tarn.common.protocol.NamenodeProtocol.CloseRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.DeleteRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListRequest;
import io.tarn.common.protocol.NamenodeProtocol.MkdirsRequest;
import io.tarn.common.protocol.NamenodeProtocol.PartitionMap;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenewLeaseRequest;
import io.tarn.common.protocol.NamenodeProtocol.ReplaceBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetReplicationRequest;
import io.tarn.common.protocol.NamenodeProtocol.SyncRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.namenode.lease.LeaseManager;
import io.tarn.namenode.namespace.FileService;
import io.tarn.namenode.namespace.Inode;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.namenode.namespace.Permissions;
import io.tarn.namenode.namespace.Route;
import io.tarn.namenode.security.Caller;
import io.tarn.namenode.security.Callers;
import io.tarn.rpc.RpcRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * Serves the operations clients send ({@link Audience#CLIENT}): lookups, creates and closes, blocks
 * (and their replacement when the writer cannot reach a datanode), listings, deletes, renames,
 * attributes, replication, leases, the partition map and where a moved file went.
 *
 * <p>Called by {@link NamenodeService#handle} on a transport I/O thread; never blocks. The hot
 * operations (GET_FILE, GET_BLOCK, CREATE, CLOSE) decode, run and answer on that thread, with no
 * allocation or lock beyond the request's decoding and the namespace's own. With several
 * namenodes, a change the namespace routes elsewhere ({@link Route}) is handed to partition 0's
 * directory coordinator or the file mover ({@link PeerLinks}) and answered when it completes; a
 * namenode that does not coordinate answers AT_COORDINATOR (a directory change) or
 * WRONG_PARTITION (a directory creation), and the client resends to partition 0. Before anything
 * runs, {@link Permissions} checks that the caller (the connection's authenticated user, made a
 * {@link Caller} by {@link Callers}) may; new entries belong to that caller. Domain errors
 * propagate as {@link TarnException} for the caller to answer; every request is answered exactly
 * once.
 */
final class ClientHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ClientHandler.class);

    private final Partitioning partitioning;
    private final Namespace namespace;
    private final FileService files;
    private final LeaseManager leases;
    private final PeerLinks links;
    private final Permissions permissions;
    /** Who callers are; set before the namenode serves ({@code tarn.security.permissions}). */
    private Callers callers = Callers.OFF;

    ClientHandler(Partitioning partitioning, Namespace namespace, FileService files, LeaseManager leases,
                  PeerLinks links) {
        this.partitioning = partitioning;
        this.namespace = namespace;
        this.files = files;
        this.leases = leases;
        this.links = links;
        this.permissions = namespace.permissions();
    }

    /** Checks permissions as {@code c} says (before the namenode serves). */
    void callers(Callers c) {
        this.callers = c;
    }

    /** Runs and answers one client operation; domain errors are thrown for the caller to answer. */
    void handle(RpcRequest request) throws TarnException {
        ByteBuf body = request.body();
        Caller caller = callers.of(request.identity());
        switch (request.opcode()) {
            case Opcode.GET_FILE -> {
                Inode entry = namespace.entry(PathRequest.decode(body).path(), caller);
                ByteBuf out = request.response();
                entry.writeStatus(out);
                request.send(out);
            }
            case Opcode.CREATE -> {
                CreateRequest r = CreateRequest.decode(body);
                permissions.checkCreate(r.path(), r.type(), r.overwrite(), caller);
                Ownership owned = owned(r.ownership(), caller);
                if (r.type() == FileType.DIRECTORY && partitioning.count() > 1) {
                    coordinate(request, owned, r.path(), r.createParents());
                } else {
                    sendStatus(request, create(r, owned));
                }
            }
            case Opcode.MKDIRS -> {
                MkdirsRequest r = MkdirsRequest.decode(body);
                permissions.checkCreate(r.path(), FileType.DIRECTORY, false, caller);
                Ownership owned = owned(r.ownership(), caller);
                if (partitioning.count() > 1) {
                    coordinate(request, owned, r.path(), true);
                } else {
                    sendStatus(request, namespace.mkdirs(r.path(), owned));
                }
            }
            case Opcode.APPEND -> {
                AppendRequest r = AppendRequest.decode(body);
                permissions.checkWrite(r.path(), "append to", caller);
                sendStatus(request, files.reopen(namespace.file(r.path()), r.clientId()));
            }
            case Opcode.SET_ATTR -> {
                SetAttributesRequest r = SetAttributesRequest.decode(body);
                permissions.checkSetAttributes(r, caller);
                setAttributes(request, r);
            }
            case Opcode.SET_REPLICATION -> {
                SetReplicationRequest r = SetReplicationRequest.decode(body);
                permissions.checkWrite(r.path(), "set the replication of", caller);
                setReplication(request, r);
            }
            case Opcode.GET_REPLICATION -> {
                String path = PathRequest.decode(body).path();
                permissions.checkTraverse(path, caller);
                int replication = namespace.replicationAt(path);
                ByteBuf out = request.response();
                out.writeByte(replication);
                request.send(out);
            }
            case Opcode.REPLACE_BLOCK -> {
                ReplaceBlockRequest r = ReplaceBlockRequest.decode(body);
                permissions.checkFile(r.fileId(), true, caller);
                FileService.Replacement replaced = files.replaceBlock(r.fileId(), r.blockIndex(), r.datanodeId(),
                        r.clientId(), r.clientHost());
                if (replaced.reported() != null) {
                    links.reportUnreachable(replaced.reported().host(), replaced.reported().port());
                }
                ByteBuf out = request.response();
                NamenodeProtocol.writeBlockRef(out, replaced.ref());
                request.send(out);
            }
            case Opcode.GET_BLOCK -> {
                GetBlockRequest r = GetBlockRequest.decode(body);
                permissions.checkFile(r.fileId(), r.write(), caller);
                ByteBuf out = request.response();
                try {
                    NamenodeProtocol.writeBlockRef(out, files.getBlock(r.fileId(), r.blockIndex(), r.write(),
                            r.clientId(), r.clientHost(), r.durableSize()));
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
                permissions.checkFile(r.fileId(), true, caller);
                BlockRefs refs = new BlockRefs(files.allocateBlocks(r.fileId(), r.first(), r.count(), r.clientId(),
                        r.clientHost(), r.durableSize()));
                ByteBuf out = request.response();
                refs.encode(out);
                request.send(out);
            }
            case Opcode.GET_BLOCKS -> {
                GetBlocksRequest r = GetBlocksRequest.decode(body);
                permissions.checkFile(r.fileId(), false, caller);
                BlockRefs refs = new BlockRefs(files.getBlocks(r.fileId(), r.first(), r.count()));
                ByteBuf out = request.response();
                refs.encode(out);
                request.send(out);
            }
            case Opcode.CLOSE -> {
                CloseRequest r = CloseRequest.decode(body);
                permissions.checkFile(r.fileId(), true, caller);
                sendStatus(request, files.close(r.fileId(), r.clientId(), r.size()));
            }
            case Opcode.SYNC -> {
                SyncRequest r = SyncRequest.decode(body);
                permissions.checkFile(r.fileId(), true, caller);
                sendStatus(request, files.sync(r.fileId(), r.clientId(), r.durableSize()));
            }
            case Opcode.LIST -> {
                ListRequest r = ListRequest.decode(body);
                permissions.checkList(r.path(), caller);
                NamenodeProtocol.ListResponse page = namespace.list(r.path(), r.startAfter(), r.max());
                ByteBuf out = request.response();
                page.encode(out);
                request.send(out);
            }
            case Opcode.DELETE -> {
                DeleteRequest r = DeleteRequest.decode(body);
                permissions.checkDelete(r.path(), r.recursive(), caller);
                delete(request, r);
            }
            case Opcode.RENAME -> {
                RenameRequest r = RenameRequest.decode(body);
                permissions.checkRename(r.src(), r.dst(), caller);
                rename(request, r);
            }
            case Opcode.RENEW_LEASE -> {
                leases.renew(RenewLeaseRequest.decode(body).clientId());
                request.send(request.response());
            }
            case Opcode.WHERE_MOVED -> {
                ByteBuf out = request.response();
                out.writeLong(files.whereMoved(Wire.readLong(body)));
                request.send(out);
            }
            default -> NamenodeService.refuse(request);
        }
    }

    /** CREATE: a file or directory, here, owned as the request asks (no caller checked). */
    FileStatus create(CreateRequest r) throws TarnException {
        return create(r, r.ownership());
    }

    private FileStatus create(CreateRequest r, Ownership ownership) throws TarnException {
        return namespace.create(r.path(), r.type(), r.overwrite(), r.createParents(), r.storageClass(),
                r.replication(), r.clientId(), ownership);
    }

    /**
     * The ownership a new entry gets: a checked caller's own user as its owner, whatever the request
     * names (as in HDFS: entries belong to whoever makes them); the request's otherwise.
     */
    private static Ownership owned(Ownership requested, Caller caller) {
        if (caller.unchecked() || requested.owner().equals(caller.user())) {
            return requested;
        }
        return new Ownership(caller.user(), requested.group(), requested.permission());
    }

    /**
     * GET_PARTITIONS: every partition's entry (its namenode, or its group's members separated by
     * {@code |}), and which one this is.
     */
    PartitionMap partitionMap() {
        return new PartitionMap(partitioning.partition(), partitioning.entries());
    }

    private void setAttributes(RpcRequest request, SetAttributesRequest r) throws TarnException {
        answerStatus(request, namespace.setAttributes(r), r.path(), c -> c.setDirectoryAttributes(r));
    }

    private void setReplication(RpcRequest request, SetReplicationRequest r) throws TarnException {
        answerStatus(request, namespace.setReplication(r.path(), r.replication()), r.path(),
                c -> c.setDirectoryReplication(r));
    }

    /** Answers a change the namespace made (DONE) or routed to the coordinator, with the entry's new status. */
    private void answerStatus(RpcRequest request, Route route, String path,
                              Function<DirectoryCoordinator, CompletableFuture<FileStatus>> everywhere) {
        if (route.kind() == Route.Kind.DONE) {
            sendStatus(request, route.status());
            return;
        }
        DirectoryCoordinator coordinator = coordinatorOrRefuse(request, route);
        if (coordinator != null) {
            everywhere.apply(coordinator).whenComplete((status, x) -> {
                if (x == null) {
                    sendStatus(request, status);
                } else {
                    answer(request, x, path);
                }
            });
        }
    }

    private void delete(RpcRequest request, DeleteRequest r) throws TarnException {
        if (r.recursive() && TarnPath.components(r.path()).isEmpty()) {
            // As in HDFS: a slip of "rm -r /" must not take the whole namespace with it. (Without
            // recursion, a root with entries is refused as not empty and an empty one stays.)
            throw new TarnException(ErrorCode.INVALID_PATH, "'/' is the root directory, which cannot be deleted; "
                    + "delete the entries under it");
        }
        Route route = namespace.delete(r.path(), r.recursive());
        if (route.kind() == Route.Kind.DONE) {
            request.send(request.response());
            return;
        }
        DirectoryCoordinator coordinator = coordinatorOrRefuse(request, route);
        if (coordinator != null) {
            coordinator.deleteTree(r.path(), r.recursive()).whenComplete((v, x) -> answer(request, x, r.path()));
        }
    }

    private void rename(RpcRequest request, RenameRequest r) throws TarnException {
        Route route = namespace.rename(r.src(), r.dst());
        switch (route.kind()) {
            case DONE -> request.send(request.response());
            case MOVE -> links.move(route.move()).whenComplete((v, x) -> answer(request, x, r.src()));
            case COORDINATOR -> {
                DirectoryCoordinator coordinator = coordinatorOrRefuse(request, route);
                if (coordinator != null) {
                    coordinator.renameDirectory(r.src(), r.dst()).whenComplete((v, x) -> answer(request, x,
                            r.src()));
                }
            }
            default -> throw new IllegalStateException("unknown route " + route);
        }
    }

    /**
     * A directory change the namespace routed to the coordinator: the coordinator when this
     * namenode is it (it runs the change after any creation of that directory it is running);
     * otherwise null, with the request answered AT_COORDINATOR, and the client resends it there.
     */
    private DirectoryCoordinator coordinatorOrRefuse(RpcRequest request, Route route) {
        DirectoryCoordinator coordinator = links.coordinator();
        if (coordinator == null) {
            request.fail(ErrorCode.AT_COORDINATOR, route.reason(), partitioning.redirectTo(0));
        }
        return coordinator;
    }

    /** A directory creation with several namenodes: partition 0 runs it everywhere, the others refuse. */
    private void coordinate(RpcRequest request, Ownership ownership, String path, boolean parents) {
        DirectoryCoordinator coordinator = links.coordinator();
        if (coordinator == null) {
            request.fail(ErrorCode.WRONG_PARTITION, "directories are created through " + partitioning.describe(0)
                    + ", not " + partitioning.describe(partitioning.partition()), partitioning.redirectTo(0));
            return;
        }
        coordinator.mkdirs(path, ownership, parents).whenComplete((status, e) -> {
            if (e == null) {
                sendStatus(request, status);
            } else {
                answer(request, e, path);
            }
        });
    }

    private static void sendStatus(RpcRequest request, FileStatus status) {
        ByteBuf out = request.response();
        NamenodeProtocol.writeStatus(out, status);
        request.send(out);
    }

    /** Answers a request run with the other namenodes: empty on success, else the failure's code. */
    private static void answer(RpcRequest request, Throwable e, String path) {
        if (e == null) {
            request.send(request.response());
            return;
        }
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof TarnException t) {
            request.fail(t.code(), t.getMessage(), t.detail());
        } else {
            LOG.error("operation on {} with the other namenodes failed", path, cause);
            request.fail(ErrorCode.INTERNAL, "operation on " + path + " with the other namenodes failed: " + cause);
        }
    }
}
