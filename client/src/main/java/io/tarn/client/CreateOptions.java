package io.tarn.client;

/**
 * How {@link TarnClient#create(String, CreateOptions)} makes a file.
 *
 * @param overwrite     replace an existing file (never a directory)
 * @param createParents create missing parent directories
 * @param storageClass  preferred storage class, or -1 for the client's {@code tarn.client.storage.class}
 */
public record CreateOptions(boolean overwrite, boolean createParents, int storageClass) {
    /** Fail when the file exists; create missing parents; default storage class. */
    public static final CreateOptions DEFAULT = new CreateOptions(false, true, -1);
    /** Replace an existing file; create missing parents; default storage class. */
    public static final CreateOptions OVERWRITE = new CreateOptions(true, true, -1);

    public CreateOptions withStorageClass(int storageClass) {
        return new CreateOptions(overwrite, createParents, storageClass);
    }
}
