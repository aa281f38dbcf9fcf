package io.tarn.it.compare;

import java.io.IOException;

/**
 * One file system under comparison, started by the runner; {@link #close()} stops it. Both sides run
 * the same workloads with the same settings, each through its own native client API.
 */
interface StorageSide extends SequentialIo, AutoCloseable {
    /** How the result table names it. */
    String description();

    /** Status of one existing empty file, {@code inflight} calls outstanding. */
    LoadResult getFile(int inflight, CompareSettings settings) throws IOException, InterruptedException;

    /** Create and close of new empty files, {@code inflight} at a time; latencies are create to closed. */
    LoadResult createClose(int inflight, CompareSettings settings) throws IOException, InterruptedException;

    /**
     * Renames, {@code inflight} at a time: each caller renames a file of its own back and forth
     * between two names in one directory; latencies are per rename.
     */
    LoadResult rename(int inflight, CompareSettings settings) throws IOException, InterruptedException;

    /**
     * The sequential workloads through a second client that copies block data straight from and to
     * storage on this host instead of over the network, measured next to the side's own
     * {@link #writeSequential}/{@link #readSequential}; null when the side has no such path here.
     */
    default SequentialIo shortCircuit() {
        return null;
    }

    @Override
    void close() throws IOException;
}
