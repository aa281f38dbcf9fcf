package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.protocol.GroupProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.replication.GroupRunner.Outcome;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Message;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;

import java.net.InetSocketAddress;

/**
 * Serves a datanode's replicated block groups on its RPC server: {@code REPLICA_MESSAGE} from the
 * other members, and the clients' {@code GROUP_WRITE} and {@code GROUP_READ}
 * ({@link GroupProtocol}).
 *
 * <p>A replication message is decoded on the I/O thread, handed to the group's loop
 * ({@link GroupRunner#deliver}) and answered at once, empty; a message for a group not hosted here
 * is answered {@code UNKNOWN_GROUP} (the sender drops it). A client request is checked (group
 * hosted, slot and range inside a block, token, generation not stale) before it reaches the
 * group, then answered when the group answers: OK once the write is applied on this leader;
 * {@code NOT_LEADER} with a {@code Redirect(member, host:port)} detail when another member leads;
 * {@code RETRY} while the group elects, syncs or pushes back (the message says what it waits for);
 * {@code GROUP_UNAVAILABLE} when the request timed out or the journal failed, naming why. A
 * malformed body throws {@link io.tarn.common.protocol.MalformedMessageException}, which the
 * transport answers before closing that connection.
 */
public final class ReplicaService implements RpcHandler {

    /**
     * Checks a client's token for this datanode's replica of a block of group {@code groupId}
     * (in {@code region}) against its registration with the namenode that created the group (which
     * issued it).
     */
    @FunctionalInterface
    public interface TokenCheck {
        boolean allows(long groupId, int region, int slot, int generation, long token, int mode);
    }

    private final ReplicationHost host;
    private final ReplicationCodec codec;
    private final FastThreadLocal<ReplicationCodec.Header> header = new FastThreadLocal<>() {
        @Override
        protected ReplicationCodec.Header initialValue() {
            return new ReplicationCodec.Header();
        }
    };
    private final FastThreadLocal<GroupProtocol.Access> access = new FastThreadLocal<>() {
        @Override
        protected GroupProtocol.Access initialValue() {
            return new GroupProtocol.Access();
        }
    };

    ReplicaService(ReplicationHost host, ReplicationCodec codec) {
        this.host = host;
        this.codec = codec;
    }

    @Override
    public void handle(RpcRequest request) {
        switch (request.opcode()) {
            case Opcode.REPLICA_MESSAGE -> message(request);
            case Opcode.GROUP_WRITE -> write(request);
            case Opcode.GROUP_READ -> read(request);
            default -> request.fail(ErrorCode.UNKNOWN_OPCODE, "a datanode's replication service does not serve "
                    + Opcode.name(request.opcode()));
        }
    }

    private void message(RpcRequest request) {
        ReplicationCodec.Header h = header.get().read(request.body());
        GroupRunner runner = host.runner(h.groupId());
        if (runner == null) {
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode holds no replica of group " + h.groupId());
            return;
        }
        Message message = codec.decode(request.body());
        runner.deliver(message);
        request.send(request.response());
    }

    private void write(RpcRequest request) {
        GroupProtocol.Access a = access.get().wrap(request.body());
        ReplicationHost.Hosted group = admit(request, a, BlockTokens.WRITE);
        if (group == null) {
            return;
        }
        ByteBuf body = request.body();
        int length = a.length();
        if (body.readableBytes() - GroupProtocol.ACCESS_LENGTH != length) {
            request.fail(ErrorCode.MALFORMED_REQUEST, describe(a) + ": the body carries "
                    + (body.readableBytes() - GroupProtocol.ACCESS_LENGTH) + " bytes of data, not " + length);
            return;
        }
        if (a.sequence() <= 0 || a.firstUnacked() <= 0 || a.firstUnacked() > a.sequence()) {
            request.fail(ErrorCode.INVALID_ARGUMENT, describe(a) + ": sequence " + a.sequence()
                    + " and first unacknowledged " + a.firstUnacked() + " must satisfy 0 < first <= sequence");
            return;
        }
        byte[] payload = new byte[RegionGroupStore.PAYLOAD_HEADER + length];
        Unpooled.wrappedBuffer(payload).setInt(0, a.generation());
        body.getBytes(a.dataIndex(), payload, RegionGroupStore.PAYLOAD_HEADER, length);
        GroupStore store = group.store();
        BlockRange range = new BlockRange((long) a.slot() * store.blockSize() + a.offset(), length);
        WriteCommand command = new WriteCommand(a.clientId(), a.sequence(), a.firstUnacked(), range,
                BytesPayload.copyOf(payload));
        String what = describe(a);
        group.runner().write(command).whenComplete((outcome, failure) -> {
            if (failure != null) {
                request.fail(ErrorCode.INTERNAL, what + ": " + failure);
            } else if (outcome.ok()) {
                request.send(request.response());
            } else {
                refuse(request, group, what, outcome);
            }
        });
    }

    private void read(RpcRequest request) {
        GroupProtocol.Access a = access.get().wrap(request.body());
        ReplicationHost.Hosted group = admit(request, a, BlockTokens.READ);
        if (group == null) {
            return;
        }
        if (request.body().readableBytes() != GroupProtocol.ACCESS_LENGTH) {
            request.fail(ErrorCode.MALFORMED_REQUEST, describe(a) + ": a read carries no data");
            return;
        }
        GroupStore store = group.store();
        int slot = a.slot();
        int generation = a.generation();
        BlockRange range = new BlockRange((long) slot * store.blockSize() + a.offset(), a.length());
        String what = describe(a);
        group.runner().read(a.clientId(), range).whenComplete((outcome, failure) -> {
            if (failure != null) {
                request.fail(ErrorCode.INTERNAL, what + ": " + failure);
            } else if (!outcome.ok()) {
                refuse(request, group, what, outcome);
            } else if (store.generation(slot) != generation) {
                int held = store.generation(slot);
                request.fail(held > generation ? ErrorCode.STALE_GENERATION : ErrorCode.BLOCK_NOT_WRITTEN,
                        what + ": the block holds generation " + held);
            } else {
                request.sendWithPayload(request.response(), Unpooled.wrappedBuffer(outcome.data()));
            }
        });
    }

    /** The hosted group if the request may go to it; otherwise answers and returns null. */
    private ReplicationHost.Hosted admit(RpcRequest request, GroupProtocol.Access a, int mode) {
        ReplicationHost.Hosted group = host.hosted(a.groupId());
        if (group == null) {
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode holds no replica of group " + a.groupId()
                    + " (yet: a new group reaches its members with their next heartbeat)");
            return null;
        }
        GroupStore store = group.store();
        int slot = a.slot();
        int offset = a.offset();
        int length = a.length();
        if (slot < 0 || slot >= store.slots() || offset < 0 || length < 0
                || (long) offset + length > store.blockSize()) {
            request.fail(ErrorCode.OUT_OF_RANGE, describe(a) + ": outside the group's " + store.slots()
                    + " blocks of " + store.blockSize() + " bytes");
            return null;
        }
        if (!host.tokens().allows(a.groupId(), store.region(), slot, a.generation(), a.token(), mode)) {
            request.fail(ErrorCode.INVALID_TOKEN, describe(a) + ": the token does not grant "
                    + (mode == BlockTokens.WRITE ? "writing" : "reading"));
            return null;
        }
        int held = store.generation(slot);
        if (a.generation() < held) {
            request.fail(ErrorCode.STALE_GENERATION, describe(a) + ": the block holds generation " + held
                    + " (it was freed and given to a newer file)");
            return null;
        }
        return group;
    }

    private static void refuse(RpcRequest request, ReplicationHost.Hosted group, String what, Outcome outcome) {
        if (outcome.status() == Status.NOT_LEADER && outcome.leaderHint() >= 0) {
            int leader = outcome.leaderHint();
            InetSocketAddress at = group.members().address(leader);
            String address = at == null ? "" : at.getHostString() + ":" + at.getPort();
            request.fail(ErrorCode.NOT_LEADER, what + ": member " + leader + " (" + address + ") leads the group",
                    at == null ? null : new ErrorDetail.Redirect(leader, address));
        } else if (outcome.status() == null) {
            request.fail(ErrorCode.GROUP_UNAVAILABLE, what + ": " + outcome.unavailable());
        } else {
            String why = outcome.unavailable() != null ? outcome.unavailable()
                    : switch (outcome.status()) {
                        case BUSY -> "the leader's window of writes in flight is full";
                        case LEADER_NOT_READY -> "the new leader is still syncing its log";
                        case ABORTED -> "leadership changed before the write completed; its outcome is unknown";
                        default -> "the group answered " + outcome.status();
                    };
            request.fail(ErrorCode.RETRY, what + ": " + why);
        }
    }

    private static String describe(GroupProtocol.Access a) {
        return "group " + a.groupId() + " block " + a.slot() + " generation " + a.generation() + " bytes "
                + a.offset() + "+" + a.length();
    }
}
