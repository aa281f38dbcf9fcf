package io.tarn.hadoop;

import io.tarn.client.TarnClient;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.TarnPath;
import org.apache.hadoop.fs.Path;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One listing as Hadoop wants it: the children of a directory, or the file itself when the path
 * names a file, each with its qualified path.
 *
 * <p>Tarn lists a file as itself, so a file and a directory holding a single file of its own name
 * ({@code /a} and {@code /a/a}) list alike; only then is the path looked up to tell them apart.
 */
final class Listing {
    private Listing() {
    }

    /** A listed entry and the qualified path it has in Hadoop. */
    record Entry(Path path, FileStatus status) {
    }

    /** Lists {@code path}, whose qualified form is {@code qualified}. */
    static List<Entry> of(TarnClient client, String path, Path qualified) throws IOException {
        List<FileStatus> statuses = client.list(path);
        if (statuses.size() == 1 && looksLikeSelf(statuses.get(0), path)) {
            FileStatus self = client.getStatus(path);
            if (self.isFile()) {
                return List.of(new Entry(qualified, self));
            }
        }
        List<Entry> out = new ArrayList<>(statuses.size());
        for (FileStatus s : statuses) {
            out.add(new Entry(new Path(qualified, s.name()), s));
        }
        return out;
    }

    private static boolean looksLikeSelf(FileStatus only, String path) {
        return only.isFile() && !path.equals("/") && only.name().equals(TarnPath.name(path));
    }
}
