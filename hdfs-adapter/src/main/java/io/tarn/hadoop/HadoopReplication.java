package io.tarn.hadoop;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.Replication;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hadoop's replication factor (any short, HDFS's number of copies) as Tarn's, which keeps one copy
 * of a block or a group of three datanodes. One per {@link TarnFileSystem}:
 *
 * <ul>
 *   <li>1 or less is 1 (Hadoop passes 0 for "none given").</li>
 *   <li>2 or 3 is 3, strictly: with fewer than three live datanodes the call fails with the
 *       namenode's NOT_ENOUGH_DATANODES message ("replication 3 needs 3 live datanodes; 2 are
 *       alive"), since the caller asked for copies Tarn cannot give.</li>
 *   <li>More than 3 is a hint, "spread this widely" (MapReduce's 10 for job files, TeraSort's
 *       partition file): 3 where the cluster can place it, else 1, as HDFS accepts a factor above its
 *       datanode count and leaves the file under-replicated. Falling back is logged at WARN once per
 *       file system, then at DEBUG.</li>
 * </ul>
 *
 * <p>The hint is resolved by the namenode's own check: the call is made with 3 and, when the
 * namenode answers NOT_ENOUGH_DATANODES, made again with 1. A failed create has changed nothing but
 * the missing parents it made, which the second call needs anyway; large clusters pay nothing extra.
 */
final class HadoopReplication {
    /** The largest Hadoop factor taken as a request for exactly Tarn's 3; above it, a hint. */
    static final short MOST_STRICT = 3;

    private static final Logger LOG = LoggerFactory.getLogger(HadoopReplication.class);

    private final String fsName;
    private final AtomicBoolean warned = new AtomicBoolean();

    /** @param fsName the file system's URI, for the warning */
    HadoopReplication(String fsName) {
        this.fsName = fsName;
    }

    /** A call that takes Tarn's factor. */
    @FunctionalInterface
    interface Call<T> {
        T apply(int factor) throws IOException;
    }

    /** Tarn's factor for a request of {@code replication}; for a hint, the one tried first (3). */
    static int factor(short replication) {
        return replication <= 1 ? Replication.ONE : Replication.THREE;
    }

    /** True for a factor above 3: a hint that falls back to 1 where 3 cannot be placed. */
    static boolean isHint(short replication) {
        return replication > MOST_STRICT;
    }

    /**
     * {@code call} with Tarn's factor for {@code replication}; for a hint, again with 1 when the
     * namenode has too few live datanodes for 3. Failures propagate as the call throws them.
     */
    <T> T apply(short replication, String path, Call<T> call) throws IOException {
        if (!isHint(replication)) {
            return call.apply(factor(replication));
        }
        try {
            return call.apply(Replication.THREE);
        } catch (IOException e) {
            if (HadoopErrors.codeOf(e) != ErrorCode.NOT_ENOUGH_DATANODES) {
                throw e;
            }
            fellBack(replication, path, "1 instead of 3: " + e.getMessage());
            return call.apply(Replication.ONE);
        }
    }

    /**
     * Logs that a hint of {@code replication} for {@code path} was not given in full, and
     * {@code why}: at WARN the first time on this file system (a small cluster answers every such
     * hint alike, so once says it), then at DEBUG.
     */
    void fellBack(short replication, String path, String why) {
        if (warned.compareAndSet(false, true)) {
            LOG.warn("{}: replication {} asked for {} is not given in full: {}. Tarn takes a factor above 3 as "
                    + "'as many copies as the cluster can place' (3 with 3 live datanodes, else 1) and fails a request "
                    + "for 2 or 3 it cannot place (logged once per file system)", fsName, replication, path, why);
        } else {
            LOG.debug("{}: replication {} asked for {} is not given in full: {}", fsName, replication, path, why);
        }
    }
}
