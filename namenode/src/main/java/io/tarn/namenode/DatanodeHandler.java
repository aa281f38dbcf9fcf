package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.BlockKeys;
import io.tarn.common.protocol.AdminProtocol.HeartbeatResponse;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.blocks.BlockGroups;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.blocks.StorageId;
import io.tarn.rpc.RpcRequest;

/**
 * Serves the operations datanodes send ({@link Audience#DATANODE}): registration with this
 * namenode's share of their regions, heartbeats, and the clean stop (deregistration).
 *
 * <p>Called by {@link NamenodeService#handle} on a transport I/O thread, also while a namenode of
 * several is starting (datanodes need no directory tree); the typed {@link #register} and
 * {@link #deregister} also serve in-process callers through {@link NamenodeService}. Heartbeats
 * are lock-free; registrations and deregistrations, which are rare, are serialized briefly on the
 * {@link DatanodeRegistry}. Every operation answers at once; a datanode whose region share does not
 * match this partition is refused with WRONG_PARTITION and nothing is registered.
 */
final class DatanodeHandler {
    private final Partitioning partitioning;
    private final DatanodeRegistry datanodes;
    private final BlockGroups groups;
    private final BlockTokens tokens;
    private final int blockSize;

    DatanodeHandler(Partitioning partitioning, DatanodeRegistry datanodes, BlockGroups groups, BlockTokens tokens,
                    int blockSize) {
        this.partitioning = partitioning;
        this.datanodes = datanodes;
        this.groups = groups;
        this.tokens = tokens;
        this.blockSize = blockSize;
    }

    /** Runs and answers one datanode operation; domain errors are thrown for the caller to answer. */
    void handle(RpcRequest request) throws TarnException {
        ByteBuf body = request.body();
        switch (request.opcode()) {
            case Opcode.REGISTER_DATANODE -> {
                RegisterResponse resp = register(RegisterRequest.decode(body));
                ByteBuf out = request.response();
                resp.encode(out);
                request.send(out);
            }
            case Opcode.HEARTBEAT -> {
                HeartbeatRequest r = HeartbeatRequest.decode(body);
                datanodes.heartbeat(r.datanodeId(), new StorageId(r.storageIdHigh(), r.storageIdLow()),
                        r.lostRegions());
                HeartbeatResponse resp = heartbeatAnswer(r);
                ByteBuf out = request.response();
                resp.encode(out);
                request.send(out);
            }
            case Opcode.DEREGISTER_DATANODE -> {
                deregister(DeregisterRequest.decode(body));
                request.send(request.response());
            }
            default -> NamenodeService.refuse(request);
        }
    }

    /**
     * The group commands for a datanode that heartbeats (after {@link DatanodeRegistry#heartbeat}
     * accepted it): see {@link BlockGroups#heartbeat}.
     */
    HeartbeatResponse heartbeatAnswer(HeartbeatRequest r) {
        DatanodeInfo dn = datanodes.get(r.datanodeId());
        // Every answer hands the block keys of the moment: the next epoch's before it starts.
        HeartbeatResponse answer = groups.heartbeat(dn, r.hostedGroups(), r.leading(), r.failed())
                .withKeys(BlockKeys.of(tokens));
        // Blocks its last report showed behind are confirmed (or cleared) by a new report.
        return dn.askForAnotherReport() ? answer.askingForAReport() : answer;
    }

    /**
     * REGISTER_DATANODE: registers the datanode's share of regions and answers with the datanode id,
     * block size and the block keys it checks tokens with. WRONG_PARTITION when the share is not this
     * partition's.
     */
    RegisterResponse register(RegisterRequest r) throws TarnException {
        checkRegionShare(r);
        DatanodeRegistry.Registration reg = datanodes.register(r);
        return new RegisterResponse(reg.datanode().id(), blockSize, BlockKeys.of(tokens), reg.resetGenerations());
    }

    /**
     * DEREGISTER_DATANODE: a datanode stopping cleanly. It is dead at once (no allocation, its blocks
     * answer DATANODE_DEAD) and, unless it kept its data, its blocks are lost (DATA_LOST).
     */
    void deregister(DeregisterRequest r) throws TarnException {
        datanodes.deregister(r.datanodeId(), new StorageId(r.storageIdHigh(), r.storageIdLow()), r.dataKept());
    }

    /**
     * Partition p of N manages the regions r of every datanode with r mod N = p, so that the owner of
     * any block follows from its region id alone. A datanode whose namenode list differs from the
     * cluster's (other order, other count) would break that; it is refused until its configuration
     * matches. An error answered to the datanode, not a routing decision: the datanode does not
     * resend it elsewhere.
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
}
