package io.tarn.hadoop;

import io.tarn.common.fs.Ownership;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.permission.FsCreateModes;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop permissions to Tarn's mode bits and back.
 *
 * <p>{@code FileSystem.create} and {@code mkdirs} receive a permission before the umask, which the
 * file system applies ({@code fs.permissions.umask-mode}), unless it arrives as
 * {@link FsCreateModes} with the masked value already worked out; {@code FileContext} applies the
 * umask itself and passes absolute permissions to {@code primitiveCreate}/{@code primitiveMkdir}.
 * HDFS's client does the same.
 */
final class Modes {
    private Modes() {
    }

    /** The mode to create with: {@code requested} (or {@code fallback} when null) under the umask. */
    static int masked(FsPermission requested, FsPermission fallback, Configuration conf) {
        FsPermission p = requested != null ? requested : fallback;
        if (p instanceof FsCreateModes modes) {
            return absolute(modes.getMasked());
        }
        return absolute(p.applyUMask(FsPermission.getUMask(conf)));
    }

    /** The mode bits of a permission used as given (sticky bit included). */
    static int absolute(FsPermission p) {
        return p.toShort() & Ownership.MAX_PERMISSION;
    }

    /** Ownership for a new entry: owned by {@code user}, group inherited from the parent, {@code mode}. */
    static Ownership newEntry(String user, int mode) {
        return new Ownership(user, "", mode);
    }

    /** A Tarn mode as a Hadoop permission. */
    static FsPermission toHadoop(int mode) {
        return new FsPermission((short) (mode & Ownership.MAX_PERMISSION));
    }
}
