package io.tarn.common.fs;

/**
 * What the namenode knows of one file or directory.
 *
 * @param name             last path component ("" for the root)
 * @param fileId           namenode-wide id; routes getBlock and close; directories have ids too
 * @param type             file or directory
 * @param size             bytes in a closed file; for a file being written, the bytes its writer last
 *                         reported stored (hsync, or when it asked for a block)
 * @param blockSize        block size the file was created with (0 for directories)
 * @param storageClass     preferred storage class (0 = DRAM, 1 = flash)
 * @param creationTime     milliseconds since the epoch
 * @param modificationTime milliseconds since the epoch
 * @param accessTime       milliseconds since the epoch; the creation time until set explicitly (Tarn
 *                         does not update it on reads, like HDFS with access times disabled)
 * @param owner            owning user
 * @param group            owning group
 * @param permission       the 12 low bits of a POSIX mode
 * @param underConstruction true while a writer holds the file's lease
 * @param replication      a file's replication (1 or 3, {@link Replication}); a directory's default for
 *                         files created below it, or {@link Replication#INHERIT} (0) when it sets none
 */
public record FileStatus(String name, long fileId, FileType type, long size, int blockSize, int storageClass,
                         long creationTime, long modificationTime, long accessTime, String owner, String group,
                         int permission, boolean underConstruction, int replication) {

    /** A status without a replication factor ({@link Replication#INHERIT}). */
    public FileStatus(String name, long fileId, FileType type, long size, int blockSize, int storageClass,
                      long creationTime, long modificationTime, long accessTime, String owner, String group,
                      int permission, boolean underConstruction) {
        this(name, fileId, type, size, blockSize, storageClass, creationTime, modificationTime, accessTime, owner,
                group, permission, underConstruction, Replication.INHERIT);
    }

    /**
     * The same directory as another namenode sees it, merged: every namenode holds every directory
     * and records the changes it makes inside it, so the directory was last modified (and accessed)
     * at the latest of their times.
     */
    public FileStatus mergeTimes(FileStatus other) {
        if (other.modificationTime <= modificationTime && other.accessTime <= accessTime) {
            return this;
        }
        return new FileStatus(name, fileId, type, size, blockSize, storageClass, creationTime,
                Math.max(modificationTime, other.modificationTime), Math.max(accessTime, other.accessTime), owner,
                group, permission, underConstruction, replication);
    }

    public boolean isDirectory() {
        return type == FileType.DIRECTORY;
    }

    public boolean isFile() {
        return type == FileType.FILE;
    }

    /** Owner, group and permission together. */
    public Ownership ownership() {
        return new Ownership(owner, group, permission);
    }
}
