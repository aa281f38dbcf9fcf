package io.tarn.common.io;

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

/**
 * File-system helpers of the write-ahead journals (the datanode's group journals, the namenode's
 * namespace journal): numbered segment files, durable directory entries, and failure reasons an
 * operator can act on.
 */
public final class JournalFiles {
    private static final int DIGITS = 20;

    private JournalFiles() {
    }

    /** {@code dir/<prefix><number, 20 digits><suffix>}: zero-padded, so names sort by number. */
    public static Path numbered(Path dir, String prefix, long number, String suffix) {
        return dir.resolve(String.format("%s%020d%s", prefix, number, suffix));
    }

    /** The numbers of {@code dir}'s files named as {@link #numbered} names them, ascending. */
    public static List<Long> numbers(Path dir, String prefix, String suffix) throws IOException {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, prefix + "*" + suffix)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                String digits = name.substring(prefix.length(), name.length() - suffix.length());
                if (digits.length() == DIGITS && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    out.add(Long.parseLong(digits));
                }
            }
        }
        out.sort(null);
        return out;
    }

    /** Makes the creation, renaming or deletion of {@code dir}'s entries durable. */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * A failure reason an operator can act on, naming the journal and the condition, such as
     * {@code journal /data/group-7 is full: No space left on device}.
     *
     * @param what the journal's kind as the reason names it ("journal", "namespace journal")
     */
    public static String reason(String what, Path dir, IOException e) {
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
        return what + " " + dir + " " + condition + ": " + detail;
    }
}
