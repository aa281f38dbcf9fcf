package io.tarn.datanode.replication;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** File naming and file-system helpers of a group journal's directory. */
final class Segments {
    private static final String PREFIX = "segment-";
    private static final String SUFFIX = ".log";

    private Segments() {
    }

    /** The segment file of sequence number {@code seq} (zero-padded so names sort by number). */
    static Path file(Path dir, long seq) {
        return dir.resolve(String.format("%s%020d%s", PREFIX, seq, SUFFIX));
    }

    /** Sequence numbers of the segment files in {@code dir}, ascending. */
    static List<Long> list(Path dir) throws IOException {
        List<Long> seqs = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*" + SUFFIX)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                String digits = name.substring(PREFIX.length(), name.length() - SUFFIX.length());
                if (digits.matches("[0-9]{1,20}")) {
                    seqs.add(Long.parseLong(digits));
                }
            }
        }
        seqs.sort(null);
        return seqs;
    }

    /** Makes a directory's entries (created, renamed or deleted files) durable. */
    static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * A failure reason an operator can act on, naming the journal and the condition, such as
     * {@code journal /data/group-7 is full: No space left on device}.
     */
    static String reason(Path dir, IOException e) {
        String detail = e.getMessage();
        if (e instanceof AccessDeniedException a) {
            detail = "access denied to " + a.getFile();
        } else if (e instanceof FileSystemException f) {
            detail = (f.getReason() != null ? f.getReason() : e.getClass().getSimpleName()) + " (" + f.getFile() + ")";
        }
        if (detail == null) {
            detail = e.getClass().getSimpleName();
        }
        String condition;
        if (detail.contains("No space left") || detail.contains("Disk quota exceeded")) {
            condition = "is full";
        } else if (detail.contains("Read-only file system") || e instanceof AccessDeniedException) {
            condition = "is read-only";
        } else {
            condition = "cannot be written";
        }
        return "journal " + dir + " " + condition + ": " + detail;
    }
}
