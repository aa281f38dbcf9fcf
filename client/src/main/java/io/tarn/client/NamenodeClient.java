package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.AdminProtocol;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.AllocateBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.AppendRequest;
import io.tarn.common.protocol.NamenodeProtocol.BlockRefs;
import io.tarn.common.protocol.NamenodeProtocol.CloseRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.ReplaceBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetReplicationRequest;
import io.tarn.common.protocol.NamenodeProtocol.DeleteRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.common.protocol.NamenodeProtocol.MkdirsRequest;
import io.tarn.common.protocol.NamenodeProtocol.PartitionMap;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.SyncRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.rpc.RpcClient;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Typed asynchronous calls to one namenode. Encodes straight into the request buffer and decodes
 * responses on the I/O thread. Thread-safe.
 */
final class NamenodeClient {
    private static final RpcClient.ResponseDecoder<Void> NO_BODY = b -> null;

    private final RpcClient rpc;

    NamenodeClient(RpcClient rpc) {
        this.rpc = rpc;
    }

    String remote() {
        return rpc.remote();
    }

    /** The INVALID_PATH error of a path too long to send (see {@link TarnPath#checkLength}), or null. */
    private static TarnException badPath(String path) {
        try {
            TarnPath.checkLength(path);
            return null;
        } catch (TarnException e) {
            return e;
        }
    }

    CompletableFuture<FileStatus> getFile(String path) {
        TarnException bad = badPath(path);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.GET_FILE, b -> Wire.writeString(b, path), NamenodeProtocol::decodeStatus);
    }

    CompletableFuture<FileStatus> create(String path, FileType type, int flags, int storageClass, long clientId,
                                         String clientHost, Ownership ownership) {
        return create(path, type, flags, storageClass, Replication.INHERIT, clientId, clientHost, ownership);
    }

    CompletableFuture<FileStatus> create(String path, FileType type, int flags, int storageClass, int replication,
                                         long clientId, String clientHost, Ownership ownership) {
        TarnException bad = badPath(path);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        CreateRequest r = new CreateRequest(path, type, flags, storageClass, clientId, clientHost, ownership,
                replication);
        return rpc.call(Opcode.CREATE, r::encode, NamenodeProtocol::decodeStatus);
    }

    CompletableFuture<FileStatus> setReplication(String path, int replication) {
        TarnException bad = badPath(path);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.SET_REPLICATION, new SetReplicationRequest(path, replication)::encode,
                NamenodeProtocol::decodeStatus);
    }

    CompletableFuture<Integer> getReplication(String path) {
        TarnException bad = badPath(path);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.GET_REPLICATION, b -> Wire.writeString(b, path), b -> {
            int r = Wire.readUnsignedByte(b);
            Wire.end(b);
            return r;
        });
    }

    CompletableFuture<BlockRef> replaceBlock(long fileId, int index, int datanodeId, long clientId,
                                             String clientHost) {
        ReplaceBlockRequest r = new ReplaceBlockRequest(fileId, index, datanodeId, clientId, clientHost);
        return rpc.call(Opcode.REPLACE_BLOCK, r::encode, NamenodeProtocol::decodeBlockRef);
    }

    CompletableFuture<FileStatus> mkdirs(String path, Ownership ownership) {
        TarnException bad = badPath(path);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.MKDIRS, new MkdirsRequest(path, ownership)::encode, NamenodeProtocol::decodeStatus);
    }

    CompletableFuture<FileStatus> append(String path, long clientId, String clientHost) {
        TarnException bad = badPath(path);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.APPEND, new AppendRequest(path, clientId, clientHost)::encode,
                NamenodeProtocol::decodeStatus);
    }

    CompletableFuture<FileStatus> setAttributes(SetAttributesRequest r) {
        TarnException bad = badPath(r.path());
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.SET_ATTR, r::encode, NamenodeProtocol::decodeStatus);
    }

    CompletableFuture<BlockRef> getBlock(long fileId, int index, boolean write, long clientId, String clientHost,
                                         long durableSize) {
        GetBlockRequest r = new GetBlockRequest(fileId, index, write, clientId, clientHost, durableSize);
        return rpc.call(Opcode.GET_BLOCK, r::encode, NamenodeProtocol::decodeBlockRef);
    }

    CompletableFuture<List<BlockRef>> allocateBlocks(long fileId, int first, int count, long clientId,
                                                     String clientHost, long durableSize) {
        AllocateBlocksRequest r = new AllocateBlocksRequest(fileId, first, count, clientId, clientHost, durableSize);
        return rpc.call(Opcode.ALLOCATE_BLOCKS, r::encode, b -> BlockRefs.decode(b).blocks());
    }

    CompletableFuture<List<BlockRef>> getBlocks(long fileId, int first, int count) {
        return rpc.call(Opcode.GET_BLOCKS, new GetBlocksRequest(fileId, first, count)::encode,
                b -> BlockRefs.decode(b).blocks());
    }

    CompletableFuture<FileStatus> sync(long fileId, long clientId, long durableSize) {
        return rpc.call(Opcode.SYNC, new SyncRequest(fileId, clientId, durableSize)::encode,
                NamenodeProtocol::decodeStatus);
    }

    CompletableFuture<FileStatus> close(long fileId, long clientId, long size) {
        return rpc.call(Opcode.CLOSE, new CloseRequest(fileId, clientId, size)::encode, NamenodeProtocol::decodeStatus);
    }

    CompletableFuture<ListResponse> list(String path, String startAfter, int max) {
        TarnException bad = badPath(path);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.LIST, new ListRequest(path, startAfter, max)::encode, ListResponse::decode);
    }

    CompletableFuture<Void> delete(String path, boolean recursive) {
        TarnException bad = badPath(path);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.DELETE, new DeleteRequest(path, recursive)::encode, NO_BODY);
    }

    CompletableFuture<Void> rename(String src, String dst) {
        TarnException bad = badPath(src);
        if (bad == null) {
            bad = badPath(dst);
        }
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        return rpc.call(Opcode.RENAME, new RenameRequest(src, dst)::encode, NO_BODY);
    }

    /** WHERE_MOVED: the new id of a file that moved from this namenode to another. */
    CompletableFuture<Long> whereMoved(long fileId) {
        return rpc.call(Opcode.WHERE_MOVED, (ByteBuf b) -> b.writeLong(fileId), Wire::readLong);
    }

    CompletableFuture<Void> renewLease(long clientId) {
        return rpc.call(Opcode.RENEW_LEASE, (ByteBuf b) -> b.writeLong(clientId), NO_BODY);
    }

    CompletableFuture<AdminProtocol.ClusterStatus> clusterStatus() {
        return rpc.call(Opcode.CLUSTER_STATUS, b -> { }, AdminProtocol.ClusterStatus::decode);
    }

    /** FSCK: the damaged files of the namenode's last scan, at most {@code max} of them. */
    CompletableFuture<AdminProtocol.FsckResponse> fsck(int max) {
        return rpc.call(Opcode.FSCK, b -> new AdminProtocol.FsckRequest(max).encode(b),
                AdminProtocol.FsckResponse::decode);
    }

    /** Closes the connection; calls in flight fail. */
    void close() {
        rpc.close();
    }

    CompletableFuture<PartitionMap> partitions() {
        return rpc.call(Opcode.GET_PARTITIONS, b -> { }, PartitionMap::decode);
    }

    CompletableFuture<Void> ping() {
        return rpc.call(Opcode.PING, b -> { }, NO_BODY);
    }
}
