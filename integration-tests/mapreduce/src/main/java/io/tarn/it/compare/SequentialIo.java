package io.tarn.it.compare;

import java.io.IOException;

/**
 * The sequential workloads through one client: a file written, then read, in 1 MiB calls. Each
 * client has a file of its own, deleted after it is read, so a file system never holds more than
 * one of them.
 */
interface SequentialIo {
    /**
     * (Over)writes the client's sequential file with {@code bytes} in 1 MiB calls; bytes per second,
     * create to closed.
     */
    double writeSequential(long bytes) throws IOException;

    /**
     * Reads the sequential file, {@code bytes} long, in 1 MiB calls, then deletes it; bytes per
     * second, open to end of file (the delete is not timed).
     */
    double readSequential(long bytes) throws IOException;
}
