package io.tarn.common.fs;

/**
 * Which namenode partition owns a file: by the hash of its name when addressed by path, by the
 * partition bits of its id ({@link FileIds}) afterwards.
 *
 * <p>Only the last path component is hashed, never the parent path: the files of one directory
 * (a Spark shuffle directory holds thousands) spread over every partition, and renaming a
 * directory moves no file. The hash is part of the protocol: clients and namenodes of one cluster
 * must agree on it, so it never changes (the pinned values in the tests guard that).
 *
 * <p>The hash is 64-bit FNV-1a over the UTF-16 code units (no encoding, no allocation), finished
 * with MurmurHash3's 64-bit mixer so that names differing only in their last characters (shuffle
 * file names do) still land far apart.
 */
public final class Partitions {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private Partitions() {
    }

    /** The partition, in {@code [0, partitions)}, that owns files called {@code name}. */
    public static int ofName(String name, int partitions) {
        if (partitions <= 1) {
            if (partitions == 1) {
                return 0;
            }
            throw new IllegalArgumentException("partition count must be positive, not " + partitions);
        }
        return (int) Long.remainderUnsigned(hash(name), partitions);
    }

    /** The partition that created the file with this id. */
    public static int ofFileId(long fileId) {
        return FileIds.partition(fileId);
    }

    /** The stable 64-bit hash of a name. */
    public static long hash(String name) {
        long h = FNV_OFFSET;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            h = (h ^ (c & 0xff)) * FNV_PRIME;
            h = (h ^ (c >>> 8)) * FNV_PRIME;
        }
        return mix(h);
    }

    private static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
