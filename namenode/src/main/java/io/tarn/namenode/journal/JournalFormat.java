package io.tarn.namenode.journal;

import io.tarn.common.io.JournalFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The on-disk layout of a namespace journal's directory.
 *
 * <p>Segment files {@code edits-<first seq, 20 digits>.log}: a header {@code magic[i32] = 0x544e4553
 * ("TNES") version[u8] = 1 namespaceId[16 bytes]}, then records, each {@code length[i32]
 * crc32c[i32] seq[i64] type[u8] body}, where {@code length} counts {@code seq}, {@code type} and the
 * body, and the CRC covers the same bytes. Sequence numbers start at 1 and are contiguous across
 * segments; a segment's name is the sequence number of its first record.
 */
final class JournalFormat {
    static final int SEGMENT_MAGIC = 0x544e4553;
    static final int SEGMENT_VERSION = 1;
    /** magic, version, namespace id. */
    static final int SEGMENT_HEADER = 4 + 1 + 16;
    /** length and crc32c. */
    static final int FRAME_HEAD = 4 + 4;
    /** seq and type, the part of a record's length that is not body. */
    static final int RECORD_HEAD = 8 + 1;
    /** Largest record body accepted: a record is one mutation, not a bulk transfer. */
    static final int MAX_BODY = 16 << 20;

    private static final String PREFIX = "edits-";
    private static final String SUFFIX = ".log";

    private JournalFormat() {
    }

    /** The segment whose first record has sequence number {@code seq}. */
    static Path segment(Path dir, long seq) {
        return JournalFiles.numbered(dir, PREFIX, seq, SUFFIX);
    }

    /** First sequence numbers of the segments in {@code dir}, ascending. */
    static List<Long> segments(Path dir) throws IOException {
        return JournalFiles.numbers(dir, PREFIX, SUFFIX);
    }

    /** Makes the creation, renaming or deletion of {@code dir}'s entries durable. */
    static void syncDirectory(Path dir) throws IOException {
        JournalFiles.syncDirectory(dir);
    }
}
