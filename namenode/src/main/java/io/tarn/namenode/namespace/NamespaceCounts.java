package io.tarn.namenode.namespace;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many files and directories a namespace holds, for cluster status. Updated lock-free by
 * whichever operation links or unlinks an entry; each entry is counted once in and once out.
 */
final class NamespaceCounts {
    private final AtomicLong files = new AtomicLong();
    /** Starts at one: the root. */
    private final AtomicLong directories = new AtomicLong(1);

    long files() {
        return files.get();
    }

    long directories() {
        return directories.get();
    }

    void fileAdded() {
        files.incrementAndGet();
    }

    void fileRemoved() {
        files.decrementAndGet();
    }

    void directoryAdded() {
        directories.incrementAndGet();
    }

    void directoryRemoved() {
        directories.decrementAndGet();
    }
}
