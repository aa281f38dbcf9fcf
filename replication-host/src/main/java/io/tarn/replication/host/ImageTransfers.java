package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.tarn.common.protocol.Opcode;
import io.tarn.replication.Message;
import io.tarn.replication.StateImage;
import io.tarn.rpc.RpcClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.CRC32C;

/**
 * Streams checkpoint images from a leader's datanode to a follower's: an {@code InstallCheckpoint}
 * the core sends becomes a transfer of {@code REPLICA_IMAGE_CHUNK} calls of at most
 * {@link ChunkedImage#CHUNK_BYTES} (a few in flight, each read from the image only when it is sent,
 * into a buffer of its own: a live region changes under a slice, and the checksum must be that of
 * the bytes sent), then the {@code InstallCheckpoint}
 * itself, carrying a {@link StagedRef} to the chunks the follower staged ({@link ImageStaging}). No
 * frame is ever larger than a chunk, and no buffer ever holds the whole image.
 *
 * <p>The core resends {@code InstallCheckpoint} on a timer until the follower answers. A resend of
 * the checkpoint being transferred changes nothing; once every chunk is in, a resend repeats only
 * the small final message; a newer checkpoint (or term) replaces the transfer. A transfer that
 * fails (connection lost, refused chunk, unknown group) is forgotten: the next resend starts over.
 *
 * <p>Thread-safety: {@link #send} is called from groups' loops, completions arrive on I/O threads;
 * chunks are read on the group's loop ({@code reader}), each transfer's state under its own lock.
 */
public final class ImageTransfers {
    private static final Logger LOG = LoggerFactory.getLogger(ImageTransfers.class);
    /** The checkpoint whose sending to a member was last logged, so that restarts of its transfer are not. */
    private final ConcurrentHashMap<Key, Long> announced = new ConcurrentHashMap<>();
    /** Chunks in flight per transfer: enough to keep a loopback or LAN link busy. */
    static final int WINDOW = 4;
    /** Bytes of a chunk's head after the group header: transferId, length, offset, crc32c. */
    static final int CHUNK_HEAD = 8 + 8 + 8 + 4;

    private record Key(long groupId, int to) {
    }

    private final ReplicationCodec codec;
    private final ConcurrentHashMap<Key, Transfer> transfers = new ConcurrentHashMap<>();
    private final LongAdder chunksSent = new LongAdder();
    private final LongAdder completed = new LongAdder();

    /** @param codec encodes the final {@code InstallCheckpoint} (with {@link StagedRef#CODEC}) */
    ImageTransfers(ReplicationCodec codec) {
        this.codec = codec;
    }

    /**
     * Sends {@code message} to its addressee over {@code peer}: starts or continues the transfer of
     * its image.
     *
     * @param reader the group's loop, where chunks are read from the image
     */
    void send(GroupMembers members, Message.InstallCheckpoint message, RpcClient peer, Executor reader) {
        if (!(message.image() instanceof ChunkedImage image)) {
            throw new IllegalArgumentException("group " + members.groupId() + ": cannot stream an image of kind "
                    + message.image().getClass().getName());
        }
        Key key = new Key(members.groupId(), message.to());
        Transfer fresh = new Transfer(key, members, message, image, peer, reader);
        Transfer[] started = new Transfer[1];
        Transfer current = transfers.compute(key, (k, old) -> {
            if (old != null && old.continuedBy(message, peer)) {
                return old;
            }
            if (old != null) {
                old.cancel();
            }
            started[0] = fresh;
            return fresh;
        });
        if (started[0] != null) {
            Long before = announced.put(key, message.meta().index());
            if (before == null || before != message.meta().index()) { // once per checkpoint and member
                LOG.info("Block group {}: sending checkpoint {} ({} bytes) to member {} at {}", members.groupId(),
                        message.meta().index(), image.sizeBytes(), message.to(), members.address(message.to()));
            }
            fresh.pump();
        } else {
            current.resent();
        }
    }

    /** Chunks handed to connections so far. */
    public long chunksSent() {
        return chunksSent.sum();
    }

    /** Transfers whose final message the follower took. */
    public long completed() {
        return completed.sum();
    }

    /** Gives up the transfers of a group no longer hosted here. */
    void forget(long groupId) {
        announced.keySet().removeIf(k -> k.groupId() == groupId);
        transfers.values().removeIf(t -> {
            if (t.key.groupId() == groupId) {
                t.cancel();
                return true;
            }
            return false;
        });
    }

    /** One image on its way to one member. */
    private final class Transfer {
        private final Key key;
        private final GroupMembers members;
        private final ChunkedImage image;
        private final RpcClient peer;
        private final Executor reader;
        private final long transferId = ThreadLocalRandom.current().nextLong();
        private final long size;
        private final Message.InstallCheckpoint message;
        private long next;
        private int inFlight;
        /** Every chunk is in and the final message went out (again on each resend). */
        private boolean chunksDone;
        private boolean over;

        Transfer(Key key, GroupMembers members, Message.InstallCheckpoint message, ChunkedImage image,
                 RpcClient peer, Executor reader) {
            this.key = key;
            this.members = members;
            this.message = message;
            this.image = image;
            this.peer = peer;
            this.reader = reader;
            this.size = image.sizeBytes();
        }

        /**
         * Whether the core's {@code m} continues this transfer: same term, image and connection, and
         * while chunks are still going out even a newer checkpoint of the same (live) image, which
         * the transfer keeps describing with the checkpoint it began with. A newer checkpoint may not
         * describe chunks read before it was captured; the older one describes them all, and
         * restarting at every checkpoint would never finish a transfer slower than checkpoints come.
         */
        synchronized boolean continuedBy(Message.InstallCheckpoint m, RpcClient via) {
            if (over || via != peer || m.term() != message.term() || m.image() != image) {
                return false;
            }
            return !chunksDone || m.meta().index() == message.meta().index();
        }

        synchronized void cancel() {
            over = true;
        }

        /** The core sent the checkpoint again: once the chunks are in, repeat the final message. */
        void resent() {
            synchronized (this) {
                if (!chunksDone || over) {
                    return;
                }
            }
            sendFinal();
        }

        /** Sends chunks while the window has room (on the group's loop). */
        void pump() {
            while (true) {
                long offset;
                int n;
                synchronized (this) {
                    if (over || inFlight >= WINDOW || next >= size) {
                        return;
                    }
                    offset = next;
                    n = (int) Math.min(ChunkedImage.CHUNK_BYTES, size - next);
                    next += n;
                    inFlight++;
                }
                ByteBuf data;
                try {
                    data = copy(image.slice(offset, n));
                } catch (RuntimeException e) {
                    fail("cannot read the image at " + offset + ": " + e);
                    return;
                }
                int crc = crc32c(data);
                chunksSent.increment();
                peer.call(Opcode.REPLICA_IMAGE_CHUNK, body -> {
                    ReplicationCodec.writeHeader(body, members.groupId(), members.version());
                    body.writeLong(transferId);
                    body.writeLong(size);
                    body.writeLong(offset);
                    body.writeInt(crc);
                }, data, answer -> Boolean.TRUE).whenComplete((ok, failure) -> chunkAnswered(failure));
            }
        }

        private void chunkAnswered(Throwable failure) {
            boolean finished;
            synchronized (this) {
                inFlight--;
                if (over) {
                    return;
                }
                finished = failure == null && next >= size && inFlight == 0;
                if (finished) {
                    chunksDone = true;
                }
            }
            if (failure != null) {
                fail("a chunk was not taken: " + failure.getMessage());
            } else if (finished) {
                sendFinal();
            } else {
                try {
                    reader.execute(this::pump);
                } catch (RejectedExecutionException e) {
                    fail("the group's loop stopped");
                }
            }
        }

        private void sendFinal() {
            Message.InstallCheckpoint m = message;
            StateImage ref = new StagedRef(transferId, size);
            Message.InstallCheckpoint last = new Message.InstallCheckpoint(m.from(), m.to(), m.term(), m.meta(), ref);
            peer.call(Opcode.REPLICA_MESSAGE, body -> {
                ReplicationCodec.writeHeader(body, members.groupId(), members.version());
                codec.encode(body, last);
            }, answer -> Boolean.TRUE).whenComplete((ok, failure) -> {
                if (failure != null) {
                    fail("the final message was not taken: " + failure.getMessage());
                } else {
                    completed.increment();
                }
            });
        }

        private void fail(String why) {
            synchronized (this) {
                if (over) {
                    return;
                }
                over = true;
            }
            transfers.remove(key, this);
            LOG.debug("group {}: checkpoint {} transfer to member {} given up: {}", key.groupId(),
                    message.meta().index(), key.to(), why);
        }
    }

    /**
     * A private copy of a chunk: a live image's slice shares memory with a region that the group's
     * writes change while the chunk waits to be sent, and the checksum must be that of the bytes sent.
     */
    private static ByteBuf copy(ByteBuf slice) {
        try {
            ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(slice.readableBytes());
            copy.writeBytes(slice, slice.readerIndex(), slice.readableBytes());
            return copy;
        } finally {
            slice.release();
        }
    }

    private static int crc32c(ByteBuf data) {
        CRC32C crc = new CRC32C();
        for (ByteBuffer part : data.nioBuffers()) {
            crc.update(part);
        }
        return (int) crc.getValue();
    }
}
