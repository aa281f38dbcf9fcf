package io.tarn.replication.host;

import io.tarn.replication.StateImage;

import java.io.IOException;
import java.util.BitSet;

/**
 * Where a {@link GroupJournal} keeps checkpoint images, each under an id that increases per group.
 * The journal writes an image with {@link #save} (which returns only once the image is durable) before
 * it writes the checkpoint record naming it, loads the latest one at recovery, and drops the others
 * once a newer checkpoint record is durable. The journal's writer thread and its image thread (which
 * saves own-state checkpoints, {@link GroupJournal#stage}) call it, never for the same id at once.
 */
public interface ImageStore {

    /** Stores {@code image} durably under {@code id}, replacing any leftover of an earlier attempt. */
    void save(long id, StateImage image) throws IOException;

    /**
     * Stores {@code image} under {@code id}, making it from the image stored under {@code fromId} by
     * rewriting only the pages ({@link ChunkedImage#PAGE_BYTES} each) in {@code changed}; the image
     * under {@code fromId} is gone afterwards. A store may save the whole image instead.
     */
    default void saveChanged(long fromId, long id, StateImage image, BitSet changed) throws IOException {
        save(id, image);
    }

    /** Reads the image stored under {@code id}; fails when it is missing or damaged. */
    StateImage load(long id) throws IOException;

    /** Deletes every image except those stored, or being stored, under {@code ids} (0 keeps none). */
    void retainOnly(long... ids) throws IOException;
}
