package io.tarn.it.compare;

import java.io.IOException;

/**
 * One file system under comparison, started in this JVM; {@link #close()} stops it. Both sides run
 * the same workloads with the same settings, each through its own native client API.
 */
interface StorageSide extends AutoCloseable {
    /** How the result table names it. */
    String description();

    /** Status of one existing empty file, {@code inflight} calls outstanding. */
    LoadResult getFile(int inflight, CompareSettings settings) throws IOException, InterruptedException;

    /** Create and close of new empty files, {@code inflight} at a time; latencies are create to closed. */
    LoadResult createClose(int inflight, CompareSettings settings) throws IOException, InterruptedException;

    /** (Over)writes the sequential file with {@code bytes} in 1 MiB calls; bytes per second, create to closed. */
    double writeSequential(long bytes) throws IOException;

    /** Reads the sequential file, {@code bytes} long, in 1 MiB calls; bytes per second, open to end of file. */
    double readSequential(long bytes) throws IOException;

    @Override
    void close() throws IOException;
}
