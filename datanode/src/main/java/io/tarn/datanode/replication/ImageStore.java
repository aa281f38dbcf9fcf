package io.tarn.datanode.replication;

import io.tarn.replication.StateImage;

import java.io.IOException;

/**
 * Where a {@link GroupJournal} keeps checkpoint images, each under an id that increases per group.
 * The journal writes an image with {@link #save} (which returns only once the image is durable) before
 * it writes the checkpoint record naming it, loads the latest one at recovery, and drops the others
 * once a newer checkpoint record is durable. Called from one thread at a time.
 */
public interface ImageStore {

    /** Stores {@code image} durably under {@code id}, replacing any leftover of an earlier attempt. */
    void save(long id, StateImage image) throws IOException;

    /** Reads the image stored under {@code id}; fails when it is missing or damaged. */
    StateImage load(long id) throws IOException;

    /** Deletes every image except those stored, or being stored, under {@code ids} (0 keeps none). */
    void retainOnly(long... ids) throws IOException;
}
