package io.tarn.replication;

import java.util.Objects;

/**
 * A durable checkpoint: the image of the group's data and the description of what it contains.
 *
 * @param meta  which entries the image holds
 * @param image the data; {@code null} only for the initial, empty checkpoint
 */
public record Checkpoint(CheckpointMeta meta, StateImage image) {

    /** The checkpoint of a group that has applied nothing. */
    public static final Checkpoint INITIAL = new Checkpoint(CheckpointMeta.INITIAL, null);

    /** Validates the components. */
    public Checkpoint {
        Objects.requireNonNull(meta, "meta");
        if (image == null && meta.index() != 0) {
            throw new IllegalArgumentException("a non-initial checkpoint needs an image");
        }
    }
}
