package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.replication.StateImage;

/**
 * How the host puts a checkpoint image into an {@code InstallCheckpoint} message and reads it back.
 * The replication core treats images as opaque, so {@link ReplicationCodec} delegates this part: an
 * in-memory host uses {@link ByteImage#CODEC}, a datanode streaming flushed block data uses a codec
 * that writes a handle on the stream.
 */
public interface ImageCodec {

    /** Appends {@code image} to {@code out}; throws {@link IllegalArgumentException} for a foreign image type. */
    void encode(StateImage image, ByteBuf out);

    /**
     * Reads one image written by {@link #encode} at {@code in}'s reader index, consuming exactly its bytes.
     *
     * @throws MalformedMessageException when the bytes do not form an image; never another exception
     */
    StateImage decode(ByteBuf in);
}
