package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.protocol.GroupProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.ReplicaMessages;
import io.tarn.replication.host.ReplicationHost;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;

import java.net.InetSocketAddress;

/**
 * Serves a datanode's replicated block groups on its RPC server: the clients' {@code GROUP_WRITE}
 * and {@code GROUP_READ} ({@link GroupProtocol}), and the messages between members, which go to the
 * host's {@link ReplicaMessages}.
 *
 * <p>A client request is checked (group hosted, slot and range inside a block, token, generation not
 * stale) before it reaches the group, then answered when the group answers: OK once the write is
 * applied on this leader;
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
        BlockTokens.Verdict check(long groupId, int region, int slot, int generation, long token, long stamp,
                                  int mode);
    }

    private final ReplicationHost host;
    private final TokenCheck tokens;
    private final FastThreadLocal<GroupProtocol.Access> access = new FastThreadLocal<>() {
        @Override
        protected GroupProtocol.Access initialValue() {
            return new GroupProtocol.Access();
        }
    };

    /**
     * @param host   the datanode's replication host (its groups' stores are {@link BlockGroupStore}s)
     * @param tokens checks clients' tokens against this datanode's registrations
     */
    public ReplicaService(ReplicationHost host, TokenCheck tokens) {
        this.host = host;
        this.tokens = tokens;
    }

    @Override
    public void handle(RpcRequest request) {
        switch (request.opcode()) {
            case Opcode.GROUP_WRITE -> write(request);
            case Opcode.GROUP_READ -> read(request);
            default -> {
                if (ReplicaMessages.serves(request.opcode())) {
                    host.messages().handle(request);
                } else {
                    request.fail(ErrorCode.UNKNOWN_OPCODE, "a datanode's replication service does not serve "
                            + Opcode.name(request.opcode()));
                }
            }
        }
    }

    private static BlockGroupStore store(ReplicationHost.Hosted group) {
        return (BlockGroupStore) group.store();
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
        BlockGroupStore store = store(group);
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
                ReplicaMessages.refuse(request, group, what, outcome);
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
        BlockGroupStore store = store(group);
        int slot = a.slot();
        int generation = a.generation();
        BlockRange range = new BlockRange((long) slot * store.blockSize() + a.offset(), a.length());
        String what = describe(a);
        boolean anyMember = a.sequence() == GroupProtocol.READ_AT_ANY_MEMBER;
        group.runner().read(a.clientId(), range).whenComplete((outcome, failure) -> {
            if (failure != null) {
                request.fail(ErrorCode.INTERNAL, what + ": " + failure);
            } else if (outcome.ok()) {
                serve(request, store, slot, generation, what, outcome.data());
            } else if (anyMember && outcome.status() == Status.NOT_LEADER && outcome.leaderHint() >= 0) {
                readAsFollower(request, group, range, slot, generation, what, outcome.leaderHint());
            } else {
                ReplicaMessages.refuse(request, group, what, outcome);
            }
        });
    }

    /**
     * Serves a read at this member although another leads: learns the leader's read index, waits
     * until this replica applied everything up to it, then reads its own replica. Any failure is
     * answered as the leader's refusal would be, so the client falls back to the leader.
     */
    private void readAsFollower(RpcRequest request, ReplicationHost.Hosted group, BlockRange range, int slot,
                                int generation, String what, int leader) {
        GroupRunner runner = group.runner();
        host.messenger().readIndex(group.members(), leader)
                .thenCompose(runner::awaitApplied)
                .whenComplete((applied, failure) -> {
                    if (failure != null || !applied.ok()) {
                        InetSocketAddress at = group.members().address(leader);
                        String why = failure != null ? String.valueOf(failure.getCause() != null
                                ? failure.getCause().getMessage() : failure.getMessage()) : applied.unavailable();
                        request.fail(ErrorCode.NOT_LEADER, what + ": this member cannot serve the read yet (" + why
                                + "); member " + leader + " leads the group", at == null ? null
                                : new ErrorDetail.Redirect(leader, at.getHostString() + ":" + at.getPort()));
                        return;
                    }
                    serve(request, store(group), slot, generation, what, group.store().read(range));
                });
    }

    private static void serve(RpcRequest request, BlockGroupStore store, int slot, int generation, String what,
                              byte[] data) {
        int held = store.generation(slot);
        if (held != generation) {
            request.fail(held > generation ? ErrorCode.STALE_GENERATION : ErrorCode.BLOCK_NOT_WRITTEN,
                    what + ": the block holds generation " + held);
        } else {
            request.sendWithPayload(request.response(), Unpooled.wrappedBuffer(data));
        }
    }

    /** The hosted group if the request may go to it; otherwise answers and returns null. */
    private ReplicationHost.Hosted admit(RpcRequest request, GroupProtocol.Access a, int mode) {
        ReplicationHost.Hosted group = host.hosted(a.groupId());
        if (group == null) {
            host.unknownGroup(a.groupId());
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode holds no replica of group " + a.groupId()
                    + " (yet: a new group reaches its members with their next heartbeat, which this request hastens)");
            return null;
        }
        BlockGroupStore store = store(group);
        int slot = a.slot();
        int offset = a.offset();
        int length = a.length();
        if (slot < 0 || slot >= store.slots() || offset < 0 || length < 0
                || (long) offset + length > store.blockSize()) {
            request.fail(ErrorCode.OUT_OF_RANGE, describe(a) + ": outside the group's " + store.slots()
                    + " blocks of " + store.blockSize() + " bytes");
            return null;
        }
        BlockTokens.Verdict v = tokens.check(a.groupId(), store.region(), slot, a.generation(), a.token(),
                a.tokenStamp(), mode);
        if (v == BlockTokens.Verdict.EXPIRED) {
            request.fail(ErrorCode.TOKEN_EXPIRED, describe(a) + ": the token (" + BlockTokens.describe(a.tokenStamp())
                    + ") has expired; ask the namenode for the block again");
            return null;
        }
        if (v != BlockTokens.Verdict.VALID) {
            request.fail(ErrorCode.INVALID_TOKEN, describe(a) + ": the token does not grant "
                    + (mode == BlockTokens.WRITE ? "writing" : "reading")
                    + (v == BlockTokens.Verdict.UNKNOWN_KEY ? " (it is under a key this datanode does not hold)" : ""));
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

    private static String describe(GroupProtocol.Access a) {
        return "group " + a.groupId() + " block " + a.slot() + " generation " + a.generation() + " bytes "
                + a.offset() + "+" + a.length();
    }
}
