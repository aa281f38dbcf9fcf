package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.tarn.common.protocol.Wire;
import io.tarn.replication.StateImage;

/**
 * What an {@code InstallCheckpoint} between datanodes carries in place of its image: the id of the
 * transfer whose chunks ({@code REPLICA_IMAGE_CHUNK}) the follower staged, and the image's size.
 * The follower's {@link ReplicaMessages} swaps it for the staged image before the core sees it.
 *
 * <p>Wire form ({@link #CODEC}): {@code transferId[i64] length[i64]}.
 *
 * @param transferId the transfer, chosen by the sender
 * @param length     bytes of the image
 */
public record StagedRef(long transferId, long length) implements StateImage {

    /** Writes and reads {@link StagedRef}s: the image codec of datanodes. */
    public static final ImageCodec CODEC = new ImageCodec() {
        @Override
        public void encode(StateImage image, ByteBuf out) {
            if (!(image instanceof StagedRef ref)) {
                throw new IllegalArgumentException("a datanode sends images in chunks, not as " + image);
            }
            out.writeLong(ref.transferId);
            out.writeLong(ref.length);
        }

        @Override
        public StateImage decode(ByteBuf in) {
            long id = Wire.readLong(in);
            long length = ReplicationCodec.readNonNegative(in, "image length");
            return new StagedRef(id, length);
        }
    };

    @Override
    public long sizeBytes() {
        return length;
    }
}
