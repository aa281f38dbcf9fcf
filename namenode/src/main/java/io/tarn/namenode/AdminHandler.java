package io.tarn.namenode;

import io.tarn.common.protocol.AdminProtocol.JournalHealth;
import io.netty.buffer.ByteBuf;
import io.tarn.common.protocol.AdminProtocol;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.common.protocol.AdminProtocol.DegradedGroup;
import io.tarn.common.protocol.AdminProtocol.Replacement;
import io.tarn.common.protocol.AdminProtocol.MemberHealth;
import io.tarn.common.protocol.AdminProtocol.ReplicationHealth;
import io.tarn.common.protocol.AdminProtocol.FsckRequest;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import io.tarn.common.protocol.Opcode;
import io.tarn.namenode.blocks.BlockGroups;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.blocks.GroupInfo;
import io.tarn.namenode.namespace.BlockHealth;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.rpc.RpcRequest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Serves the operations of administration tools and liveness probes ({@link Audience#ADMIN}):
 * CLUSTER_STATUS (uptime, counts, operations served, every datanode's state, damaged files, block
 * groups with a member down), FSCK
 * (the damaged files of the last scan, see {@link BlockHealth}) and PING.
 *
 * <p>Called by {@link NamenodeService#handle} on a transport I/O thread, also while a namenode of
 * several is starting; {@link #clusterStatus} also serves in-process callers. Reads only: takes
 * no lock, changes nothing, and answers at once.
 */
final class AdminHandler {
    private final Clock clock;
    private final long startedAt;
    private final int blockSize;
    private final Namespace namespace;
    private final DatanodeRegistry datanodes;
    private final LongAdder operations;
    private final BlockHealth health;
    private final BlockGroups groups;
    private final Supplier<JournalHealth> journal;

    /** {@code operations}: the service's count of requests served, read for the status. */
    AdminHandler(Clock clock, int blockSize, Namespace namespace, DatanodeRegistry datanodes, LongAdder operations,
            BlockHealth health, BlockGroups groups, Supplier<JournalHealth> journal) {
        this.journal = journal;
        this.groups = groups;
        this.clock = clock;
        this.startedAt = clock.millis();
        this.blockSize = blockSize;
        this.namespace = namespace;
        this.datanodes = datanodes;
        this.operations = operations;
        this.health = health;
    }

    /** Answers one administration operation. */
    void handle(RpcRequest request) {
        switch (request.opcode()) {
            case Opcode.CLUSTER_STATUS -> {
                ByteBuf out = request.response();
                clusterStatus().encode(out);
                request.send(out);
            }
            case Opcode.FSCK -> {
                FsckRequest r = FsckRequest.decode(request.body());
                FsckResponse last = health.last();
                FsckResponse answer = last.files().size() <= r.max() ? last : new FsckResponse(last.scannedAtMs(),
                        last.damagedFiles(), last.lostBlocks(), last.unavailableBlocks(),
                        last.files().subList(0, r.max()));
                ByteBuf out = request.response();
                answer.encode(out);
                request.send(out);
            }
            case Opcode.PING -> request.send(request.response());
            default -> NamenodeService.refuse(request);
        }
    }

    /** CLUSTER_STATUS. */
    ClusterStatus clusterStatus() {
        List<DatanodeStatus> list = new ArrayList<>();
        Map<Integer, Integer> groupsOn = groups.countByDatanode();
        for (DatanodeInfo dn : datanodes.all()) {
            if (dn.expired()) {
                continue; // forgotten: dead past tarn.namenode.datanode.expiry
            }
            list.add(new DatanodeStatus(dn.id(), dn.host(), dn.port(), dn.storageClass(), wireState(dn),
                    dn.capacityBlocks(), dn.freeBlocks(), datanodes.silenceMs(dn), dn.shortCircuit(),
                    groupsOn.getOrDefault(dn.id(), 0)));
        }
        return new ClusterStatus(clock.millis() - startedAt, namespace.fileCount(), namespace.directoryCount(),
                operations.sum(), blockSize, list, health.last().damagedFiles(), groups.count(), replication(),
                journal.get());
    }

    /**
     * The groups with a member whose datanode is dead, reported unreachable, or back without the
     * group's region, or alive with the group stopped there, or with a member replacement under way:
     * all counted, the first {@link AdminProtocol#MAX_DEGRADED_GROUPS} by id detailed.
     * One pass over the groups, on an administration request only.
     */
    private ReplicationHealth replication() {
        List<DegradedGroup> degraded = new ArrayList<>();
        for (GroupInfo g : groups.all()) {
            List<MemberHealth> members = new ArrayList<>(g.members().size());
            boolean down = false;
            for (GroupInfo.Member m : g.members()) {
                DatanodeInfo dn = m.datanode();
                int state = m.lost() ? MemberHealth.LOST : memberState(dn);
                String failure = state == DatanodeStatus.ALIVE ? g.failure(m.memberId()) : null;
                if (failure != null) {
                    state = MemberHealth.FAILED;
                }
                down |= state != DatanodeStatus.ALIVE;
                members.add(new MemberHealth(m.memberId(), dn.id(), dn.host(), dn.port(), state,
                        datanodes.silenceMs(dn), failure));
            }
            GroupInfo.Change c = g.change();
            if (down || c != null) {
                DatanodeInfo joining = c == null ? null : c.added().datanode();
                degraded.add(new DegradedGroup(g.id(), members, c == null ? null
                        : new Replacement(c.removed().memberId(), c.added().memberId(), joining.id(), joining.host(),
                                joining.port(), Math.max(0, clock.millis() - c.startedMs()))));
            }
        }
        degraded.sort(Comparator.comparingLong(DegradedGroup::groupId));
        int shown = Math.min(degraded.size(), AdminProtocol.MAX_DEGRADED_GROUPS);
        return new ReplicationHealth(degraded.size(), degraded.subList(0, shown));
    }

    /** A member's datanode state in MemberHealth's numbering, where a datanode not registered yet counts as stopped. */
    private static int memberState(DatanodeInfo dn) {
        int state = wireState(dn);
        return state == DatanodeStatus.UNREGISTERED ? DatanodeStatus.STOPPED : state;
    }

    private static int wireState(DatanodeInfo dn) {
        switch (dn.liveness()) {
            case ALIVE: return dn.reportedUnreachable() ? DatanodeStatus.UNREACHABLE : DatanodeStatus.ALIVE;
            case STOPPED: return dn.awaitingRegistration() ? DatanodeStatus.UNREGISTERED : DatanodeStatus.STOPPED;
            default: return DatanodeStatus.SILENT;
        }
    }
}
