package io.tarn.client;

import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;

/**
 * How {@link TarnClient#create(String, CreateOptions)} makes a file (and
 * {@link TarnClient#mkdirs(String, Ownership)} a directory).
 *
 * @param overwrite     replace an existing file (never a directory)
 * @param createParents create missing parent directories
 * @param storageClass  preferred storage class, or -1 for the client's {@code tarn.client.storage.class}
 * @param ownership     owner, group and permission; unspecified parts are filled in as
 *                      {@link Ownership} describes, an empty owner with this JVM's user name
 * @param replication   1 or 3, or {@link Replication#INHERIT} (0) for the default of the nearest
 *                      directory that sets one, else the cluster's ({@code tarn.replication.default});
 *                      the namenode refuses other numbers (INVALID_REPLICATION)
 */
public record CreateOptions(boolean overwrite, boolean createParents, int storageClass, Ownership ownership,
                            int replication) {
    /** Fail when the file exists; create missing parents; default storage class, ownership and replication. */
    public static final CreateOptions DEFAULT = new CreateOptions(false, true, -1, Ownership.UNSPECIFIED);
    /** Replace an existing file; create missing parents; default storage class, ownership and replication. */
    public static final CreateOptions OVERWRITE = new CreateOptions(true, true, -1, Ownership.UNSPECIFIED);

    public CreateOptions {
        if (ownership == null) {
            throw new IllegalArgumentException("ownership must not be null (use Ownership.UNSPECIFIED)");
        }
    }

    /** Inherited replication. */
    public CreateOptions(boolean overwrite, boolean createParents, int storageClass, Ownership ownership) {
        this(overwrite, createParents, storageClass, ownership, Replication.INHERIT);
    }

    /** Default ownership and replication. */
    public CreateOptions(boolean overwrite, boolean createParents, int storageClass) {
        this(overwrite, createParents, storageClass, Ownership.UNSPECIFIED);
    }

    public CreateOptions withStorageClass(int storageClass) {
        return new CreateOptions(overwrite, createParents, storageClass, ownership, replication);
    }

    public CreateOptions withOwnership(Ownership ownership) {
        return new CreateOptions(overwrite, createParents, storageClass, ownership, replication);
    }

    /** The same options with replication {@code replication} (1 or 3; 0 inherits). */
    public CreateOptions withReplication(int replication) {
        return new CreateOptions(overwrite, createParents, storageClass, ownership, replication);
    }
}
