package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.PeerProtocol.AdoptionRequest;
import io.tarn.namenode.PeerProtocol.DirMkdirRequest;
import io.tarn.namenode.PeerProtocol.FreeBlocksRequest;
import io.tarn.namenode.PeerProtocol.UnreachableRequest;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetReplicationRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.namespace.FileService;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.rpc.RpcRequest;

/**
 * Serves the operations other namenodes send ({@link Audience#PEER}): the directory changes
 * partition 0's {@link DirectoryCoordinator} replicates (DIR_MKDIR, DIR_SET_ATTR, DIR_SET_REPLICATION,
 * DIR_SEAL, DIR_UNSEAL, DIR_DELETE, DIR_RENAME), a datanode another namenode's client could not
 * reach (DATANODE_UNREACHABLE), the steps of a file moving here from another namenode
 * ({@link FileMover}: FILE_ADOPT, FILE_ADOPTION, FILE_ADOPTION_SETTLED, FREE_BLOCKS) and the tree a
 * starting namenode copies (DIR_SNAPSHOT).
 *
 * <p>Called by {@link NamenodeService#handle} on a transport I/O thread (or, for directory changes
 * parked while this namenode started, by {@link StartupGate#open}). Each operation applies exactly
 * what the sender decided, idempotently where the sender may resend it, and answers at once;
 * domain errors propagate as {@link TarnException} for the caller to answer to the sender.
 */
final class PeerHandler {
    private final Partitioning partitioning;
    private final Namespace namespace;
    private final FileService files;
    private final DatanodeRegistry datanodes;

    PeerHandler(Partitioning partitioning, Namespace namespace, FileService files, DatanodeRegistry datanodes) {
        this.partitioning = partitioning;
        this.namespace = namespace;
        this.files = files;
        this.datanodes = datanodes;
    }

    /** Runs and answers one operation of another namenode; domain errors are thrown for the caller to answer. */
    void handle(RpcRequest request) throws TarnException {
        ByteBuf body = request.body();
        switch (request.opcode()) {
            case Opcode.DIR_MKDIR -> {
                DirMkdirRequest r = DirMkdirRequest.decode(body);
                sendStatus(request, namespace.applyMkdir(r.parent(), r.name(), r.dirId(), r.ownership(), r.time()));
            }
            case Opcode.DIR_SET_ATTR -> sendStatus(request,
                    namespace.applySetAttributes(SetAttributesRequest.decode(body)));
            case Opcode.DIR_SET_REPLICATION -> {
                SetReplicationRequest r = SetReplicationRequest.decode(body);
                sendStatus(request, namespace.applySetReplication(r.path(), r.replication()));
            }
            case Opcode.DATANODE_UNREACHABLE -> {
                UnreachableRequest r = UnreachableRequest.decode(body);
                DatanodeInfo dn = datanodes.byAddress(r.host(), r.port());
                if (dn != null) {
                    datanodes.reportUnreachable(dn, "another namenode's client");
                }
                request.send(request.response());
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
            case Opcode.DIR_RENAME -> {
                RenameRequest r = RenameRequest.decode(body);
                namespace.applyRename(r.src(), r.dst());
                request.send(request.response());
            }
            case Opcode.FILE_ADOPT -> {
                AdoptRequest r = AdoptRequest.decode(body);
                sendStatus(request, namespace.adopt(r, files.adoptedBlocks(r.blocks(), partitioning.partition())));
            }
            case Opcode.FILE_ADOPTION -> {
                long newId = namespace.adoption(AdoptionRequest.decode(body).ticket());
                ByteBuf out = request.response();
                out.writeLong(newId);
                request.send(out);
            }
            case Opcode.FILE_ADOPTION_SETTLED -> {
                namespace.settleAdoption(AdoptionRequest.decode(body).ticket());
                request.send(request.response());
            }
            case Opcode.FREE_BLOCKS -> {
                namespace.blocksReturned(files.freeReturned(FreeBlocksRequest.decode(body).blocks()));
                request.send(request.response());
            }
            case Opcode.DIR_SNAPSHOT -> {
                ByteBuf out = request.response();
                namespace.snapshot().encode(out);
                request.send(out);
            }
            default -> NamenodeService.refuse(request);
        }
    }

    private static void sendStatus(RpcRequest request, FileStatus status) {
        ByteBuf out = request.response();
        NamenodeProtocol.writeStatus(out, status);
        request.send(out);
    }
}
