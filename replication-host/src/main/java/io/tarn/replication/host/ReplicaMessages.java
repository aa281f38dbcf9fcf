package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.replication.Message;
import io.tarn.replication.Status;
import io.tarn.replication.host.GroupRunner.Outcome;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.zip.CRC32C;

/**
 * Serves the messages members of a {@link ReplicationHost}'s groups send each other:
 * {@code REPLICA_MESSAGE}, {@code REPLICA_IMAGE_CHUNK} and {@code REPLICA_READ_INDEX}. What a host's
 * process serves to its own clients (a datanode's block writes and reads, a namenode's metadata
 * calls) is its own handler's business; that handler passes these three opcodes here.
 *
 * <p>A replication message is decoded on the I/O thread, handed to the group's loop
 * ({@link GroupRunner#deliver}) and answered at once, empty; a message for a group not hosted here
 * is answered {@code UNKNOWN_GROUP} (the sender drops it; a vote request is also kept a moment
 * for the group, which may be a new one not hosted here yet:
 * {@link ReplicationHost#arrivedEarly}). A malformed body throws
 * {@link io.tarn.common.protocol.MalformedMessageException}, which the transport answers before
 * closing that connection.
 */
public final class ReplicaMessages implements RpcHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaMessages.class);

    private final ReplicationHost host;
    private final ReplicationCodec codec;
    private final FastThreadLocal<ReplicationCodec.Header> header = new FastThreadLocal<>() {
        @Override
        protected ReplicationCodec.Header initialValue() {
            return new ReplicationCodec.Header();
        }
    };

    ReplicaMessages(ReplicationHost host, ReplicationCodec codec) {
        this.host = host;
        this.codec = codec;
    }

    /** Whether {@code opcode} is one of the messages served here. */
    public static boolean serves(int opcode) {
        return opcode == Opcode.REPLICA_MESSAGE || opcode == Opcode.REPLICA_IMAGE_CHUNK
                || opcode == Opcode.REPLICA_READ_INDEX;
    }

    @Override
    public void handle(RpcRequest request) {
        switch (request.opcode()) {
            case Opcode.REPLICA_MESSAGE -> message(request);
            case Opcode.REPLICA_IMAGE_CHUNK -> chunk(request);
            case Opcode.REPLICA_READ_INDEX -> readIndex(request);
            default -> request.fail(ErrorCode.UNKNOWN_OPCODE, "replication between members does not serve "
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
            request.fail(ErrorCode.UNKNOWN_GROUP, "this " + host.process() + " holds no replica of group "
                    + h.groupId());
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
        ReplicationHost.Hosted group = hosted(request, groupId);
        if (group == null) {
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
                LOG.info("Group {}: installing checkpoint {} from member {} ({} bytes received in chunks)",
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
        ReplicationHost.Hosted group = hosted(request, groupId);
        if (group == null) {
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

    /** The group if hosted here, else null once the request was answered UNKNOWN_GROUP. */
    private ReplicationHost.Hosted hosted(RpcRequest request, long groupId) {
        ReplicationHost.Hosted group = host.hosted(groupId);
        if (group == null) {
            host.unknownGroup(groupId);
            request.fail(ErrorCode.UNKNOWN_GROUP, "this " + host.process() + " holds no replica of group " + groupId);
        }
        return group;
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

    /**
     * A member asks this one, which it believes leads, for a read index: answered {@code index[i64]}
     * once confirmed, else NOT_LEADER (with the leader when known) or GROUP_UNAVAILABLE.
     */
    private void readIndex(RpcRequest request) {
        ReplicationCodec.Header h = header.get().read(request.body());
        long groupId = h.groupId();
        ReplicationHost.Hosted group = hosted(request, groupId);
        if (group == null) {
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

    /**
     * Answers a request the group refused: NOT_LEADER with a {@code Redirect(member, host:port)}
     * detail when another member leads, GROUP_UNAVAILABLE when it timed out or the journal failed,
     * RETRY while the group elects, syncs or pushes back (the message says what it waits for).
     */
    public static void refuse(RpcRequest request, ReplicationHost.Hosted group, String what, Outcome outcome) {
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
}
