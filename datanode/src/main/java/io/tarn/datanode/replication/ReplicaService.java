package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.protocol.GroupProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.replication.GroupRunner.Outcome;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Message;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.zip.CRC32C;

/**
 * Serves a datanode's replicated block groups on its RPC server: {@code REPLICA_MESSAGE} from the
 * other members, and the clients' {@code GROUP_WRITE} and {@code GROUP_READ}
 * ({@link GroupProtocol}).
 *
 * <p>A replication message is decoded on the I/O thread, handed to the group's loop
 * ({@link GroupRunner#deliver}) and answered at once, empty; a message for a group not hosted here
 * is answered {@code UNKNOWN_GROUP} (the sender drops it; a vote request is also kept a moment
 * for the group, which may be a new one not hosted here yet:
 * {@link ReplicationHost#arrivedEarly}).
 * A client request is checked (group hosted, slot and range inside a block, token, generation not
 * stale) before it reaches the group, then answered when the group answers: OK once the write is
 * applied on this leader;
 * {@code NOT_LEADER} with a {@code Redirect(member, host:port)} detail when another member leads;
 * {@code RETRY} while the group elects, syncs or pushes back (the message says what it waits for);
 * {@code GROUP_UNAVAILABLE} when the request timed out or the journal failed, naming why. A
 * malformed body throws {@link io.tarn.common.protocol.MalformedMessageException}, which the
 * transport answers before closing that connection.
 */
public final class ReplicaService implements RpcHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaService.class);

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
            case Opcode.REPLICA_IMAGE_CHUNK -> chunk(request);
            case Opcode.REPLICA_READ_INDEX -> readIndex(request);
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
            host.unknownGroup(h.groupId());
            ByteBuf body = request.body();
            // The message's type follows its format version.
            int type = body.readableBytes() >= 2 ? body.getUnsignedByte(body.readerIndex() + 1) : -1;
            if (type == ReplicationCodec.REQUEST_VOTE || type == ReplicationCodec.PRE_VOTE) {
                host.arrivedEarly(h.groupId(), codec.decode(body));
            }
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode holds no replica of group " + h.groupId());
            return;
        }
        Message message = codec.decode(request.body());
        if (message instanceof Message.InstallCheckpoint install && install.image() instanceof StagedRef ref) {
            install(request, h.groupId(), install, ref);
            return;
        }
        runner.deliver(message);
        request.send(request.response());
    }

    /**
     * A leader's {@code InstallCheckpoint} naming the image transfer it completed: on the group's
     * loop, swaps the reference for the staged image and hands the message to the replica there, so
     * the image is restored before any other chunk can replace it.
     */
    private void install(RpcRequest request, long groupId, Message.InstallCheckpoint install, StagedRef ref) {
        ReplicationHost.Hosted group = host.hosted(groupId);
        if (group == null) {
            host.unknownGroup(groupId);
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode holds no replica of group " + groupId);
            return;
        }
        onLoop(request, group, () -> {
            ImageStaging.StagedImage image = group.staging().resolve(ref.transferId(), ref.length());
            if (image == null) {
                request.fail(ErrorCode.RETRY, "group " + groupId + ": checkpoint image transfer "
                        + Long.toHexString(ref.transferId()) + " is not complete here; send it again");
                return;
            }
            if (!image.restored()) {
                LOG.info("Block group {}: installing checkpoint {} from member {} ({} bytes received in chunks)",
                        groupId, install.meta().index(), install.from(), ref.length());
            }
            group.runner().deliver(new Message.InstallCheckpoint(install.from(), install.to(), install.term(),
                    install.meta(), image));
            request.send(request.response());
        });
    }

    /**
     * One chunk of a checkpoint image ({@link ImageTransfers}): group header, then
     * {@code transferId[i64] length[i64] offset[i64] crc32c[i32]} and the chunk's bytes to the end of
     * the body. Checked here, staged on the group's loop ({@link ImageStaging}).
     */
    private void chunk(RpcRequest request) {
        ByteBuf body = request.body();
        ReplicationCodec.Header h = header.get().read(body);
        long groupId = h.groupId();
        ReplicationHost.Hosted group = host.hosted(groupId);
        if (group == null) {
            host.unknownGroup(groupId);
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode holds no replica of group " + groupId);
            return;
        }
        long transferId = Wire.readLong(body);
        long length = ReplicationCodec.readNonNegative(body, "image length");
        long offset = ReplicationCodec.readNonNegative(body, "chunk offset");
        int crc = Wire.readInt(body);
        CRC32C actual = new CRC32C();
        for (ByteBuffer part : body.nioBuffers()) {
            actual.update(part);
        }
        if ((int) actual.getValue() != crc) {
            request.fail(ErrorCode.MALFORMED_REQUEST, "group " + groupId + ": image chunk at " + offset
                    + " fails its checksum");
            return;
        }
        onLoop(request, group, () -> {
            String refused = group.staging().accept(transferId, length, offset, body);
            if (refused != null) {
                request.fail(ErrorCode.RETRY, refused);
            } else {
                request.send(request.response());
            }
        });
    }

    /** Runs {@code task} on the group's loop; the request stays unanswered (its body valid) until then. */
    private static void onLoop(RpcRequest request, ReplicationHost.Hosted group, Runnable task) {
        try {
            group.runner().loop().execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    request.fail(ErrorCode.INTERNAL, "group " + group.members().groupId() + ": " + e);
                }
            });
        } catch (RejectedExecutionException e) {
            request.fail(ErrorCode.UNKNOWN_GROUP, "group " + group.members().groupId() + " is being stopped here");
        }
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
        boolean anyMember = a.sequence() == GroupProtocol.READ_AT_ANY_MEMBER;
        group.runner().read(a.clientId(), range).whenComplete((outcome, failure) -> {
            if (failure != null) {
                request.fail(ErrorCode.INTERNAL, what + ": " + failure);
            } else if (outcome.ok()) {
                serve(request, store, slot, generation, what, outcome.data());
            } else if (anyMember && outcome.status() == Status.NOT_LEADER && outcome.leaderHint() >= 0) {
                readAsFollower(request, group, range, slot, generation, what, outcome.leaderHint());
            } else {
                refuse(request, group, what, outcome);
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
                    serve(request, group.store(), slot, generation, what, group.store().read(range));
                });
    }

    private static void serve(RpcRequest request, GroupStore store, int slot, int generation, String what,
                              byte[] data) {
        int held = store.generation(slot);
        if (held != generation) {
            request.fail(held > generation ? ErrorCode.STALE_GENERATION : ErrorCode.BLOCK_NOT_WRITTEN,
                    what + ": the block holds generation " + held);
        } else {
            request.sendWithPayload(request.response(), Unpooled.wrappedBuffer(data));
        }
    }

    /**
     * A member asks this one, which it believes leads, for a read index: answered {@code index[i64]}
     * once confirmed, else NOT_LEADER (with the leader when known) or GROUP_UNAVAILABLE.
     */
    private void readIndex(RpcRequest request) {
        ReplicationCodec.Header h = header.get().read(request.body());
        long groupId = h.groupId();
        ReplicationHost.Hosted group = host.hosted(groupId);
        if (group == null) {
            host.unknownGroup(groupId);
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode holds no replica of group " + groupId);
            return;
        }
        String what = "group " + groupId + " read index";
        group.runner().readIndex().whenComplete((answer, failure) -> {
            if (failure != null) {
                request.fail(ErrorCode.INTERNAL, what + ": " + failure);
            } else if (answer.index() >= 0) {
                ByteBuf response = request.response();
                response.writeLong(answer.index());
                request.send(response);
            } else {
                refuse(request, group, what, answer.refusal());
            }
        });
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
