package io.tarn.replication.host;

import io.tarn.common.io.JournalFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** File naming and file-system helpers of a group journal's directory. */
final class Segments {
    private static final String PREFIX = "segment-";
    private static final String SUFFIX = ".log";

    private Segments() {
    }

    /** The segment file of sequence number {@code seq} (zero-padded so names sort by number). */
    static Path file(Path dir, long seq) {
        return JournalFiles.numbered(dir, PREFIX, seq, SUFFIX);
    }

    /** Sequence numbers of the segment files in {@code dir}, ascending. */
    static List<Long> list(Path dir) throws IOException {
        return JournalFiles.numbers(dir, PREFIX, SUFFIX);
    }

    /** Makes a directory's entries (created, renamed or deleted files) durable. */
    static void forceDirectory(Path dir) throws IOException {
        JournalFiles.syncDirectory(dir);
    }

    /**
     * A failure reason an operator can act on, naming the journal and the condition, such as
     * {@code journal /data/group-7 is full: No space left on device}.
     */
    static String reason(Path dir, IOException e) {
        return JournalFiles.reason("journal", dir, e);
    }
}
