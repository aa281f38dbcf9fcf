package io.tarn.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What a namenode's journal directory holds, read from its file names (checkpoints and segments). */
final class JournalCheckpointFiles {
    private JournalCheckpointFiles() {
    }

    private static List<Long> numbers(Path dir, String prefix, String suffix) throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(prefix) && n.endsWith(suffix))
                    .map(n -> Long.parseLong(n.substring(prefix.length(), n.length() - suffix.length())))
                    .sorted().toList();
        }
    }

    /** The record the newest checkpoint covers, 0 when there is none. */
    static long newest(Path dir) throws IOException {
        List<Long> all = numbers(dir, "checkpoint-", ".image");
        return all.isEmpty() ? 0 : all.get(all.size() - 1);
    }

    static int count(Path dir) throws IOException {
        return numbers(dir, "checkpoint-", ".image").size();
    }

    /** The first record of the oldest journal segment. */
    static long oldestSegment(Path dir) throws IOException {
        return numbers(dir, "edits-", ".log").get(0);
    }
}
