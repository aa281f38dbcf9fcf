package io.tarn.common.fs;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ReplicationException;

/**
 * Replication factors a file may have: {@link #ONE} (one copy of each block on one datanode) or
 * {@link #THREE} (each block in a group of three datanodes kept consistent by ParallelRaft). On
 * the wire, {@link #INHERIT} asks for the default of the nearest directory that sets one, else
 * the cluster's ({@code tarn.replication.default}); in a directory's status it means "no default
 * set here".
 */
public final class Replication {
    /** Ask for the inherited default (CREATE); no default of its own (a directory's status). */
    public static final int INHERIT = 0;
    /** One copy of each block. */
    public static final int ONE = 1;
    /** A group of three datanodes per block. */
    public static final int THREE = 3;

    private Replication() {
    }

    /** True for a factor a file may have. */
    public static boolean valid(int factor) {
        return factor == ONE || factor == THREE;
    }

    /** {@code factor}, or INVALID_REPLICATION naming {@code path} when it is neither 1 nor 3. */
    public static int check(int factor, String path) throws ReplicationException {
        if (!valid(factor)) {
            throw new ReplicationException(ErrorCode.INVALID_REPLICATION, "cannot give '" + path + "' replication "
                    + factor + ": Tarn keeps 1 copy of a block or a group of 3; use 1 or 3");
        }
        return factor;
    }
}
