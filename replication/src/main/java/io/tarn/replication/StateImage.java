package io.tarn.replication;

/**
 * An immutable image of a block group's data at a checkpoint, produced and consumed by the host.
 *
 * <p>The protocol core never looks inside: it only hands an image from the host that captured it
 * to the disk, and from a leader to a lagging follower, whose host then installs it. A real
 * datanode implements it as a handle on flushed block data that the transport streams; the
 * simulator implements it as an in-memory map.
 */
public interface StateImage {

    /** Approximate size in bytes, used for transfer accounting. */
    long sizeBytes();
}
