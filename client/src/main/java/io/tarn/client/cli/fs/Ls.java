package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.common.fs.TarnPath;
import io.tarn.client.cli.Formats;
import io.tarn.common.fs.FileStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@code -ls}: one line per entry: type, size, modification time, path. */
@Command(name = "-ls", aliases = "ls",
        description = {"List directories and files. Each line shows the type (d for a directory, - for a file), "
                + "the size in bytes, the modification time (local time) and the path.",
                "A directory argument prints 'Found N items' and its entries."})
final class Ls extends FsSubcommand {
    @Option(names = "-R", description = "Recurse into subdirectories.")
    private boolean recursive;

    @Option(names = "-h", description = "Human-readable sizes (1.5 M, 2 G).")
    private boolean human;

    @Option(names = "-d", description = "List directories as plain entries rather than their contents.")
    private boolean directoryItself;

    @Parameters(paramLabel = "PATH", arity = "0..*", description = "Paths to list (default: /).")
    private List<String> paths = List.of("/");

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        for (String arg : paths) {
            String path = absolute(arg);
            try {
                FileStatus status = client.getStatus(path);
                if (status.isDirectory() && !directoryItself) {
                    listDirectory(client, path, !recursive);
                } else {
                    print(List.of(status), List.of(path));
                }
            } catch (IOException e) {
                error(arg, e);
            }
        }
        return true;
    }

    private void listDirectory(TarnClient client, String dir, boolean header) throws IOException {
        List<FileStatus> entries = new ArrayList<>();
        List<String> entryPaths = new ArrayList<>();
        collect(client, dir, entries, entryPaths);
        if (header) {
            out().println("Found " + entries.size() + " items");
        }
        print(entries, entryPaths);
    }

    /** The entries of a directory, each followed by its subtree with -R (one column width for all). */
    private void collect(TarnClient client, String dir, List<FileStatus> entries, List<String> entryPaths)
            throws IOException {
        for (FileStatus e : client.list(dir)) {
            String path = TarnPath.child(dir, e.name());
            entries.add(e);
            entryPaths.add(path);
            if (recursive && e.isDirectory()) {
                collect(client, path, entries, entryPaths);
            }
        }
    }

    private void print(List<FileStatus> entries, List<String> entryPaths) {
        int width = sizeWidth(entries);
        for (int i = 0; i < entries.size(); i++) {
            out().println(row(entries.get(i), entryPaths.get(i), width));
        }
    }

    private int sizeWidth(List<FileStatus> entries) {
        int w = 1;
        for (FileStatus e : entries) {
            w = Math.max(w, size(e).length());
        }
        return w;
    }

    private String size(FileStatus e) {
        return human ? Formats.human(e.size()) : Long.toString(e.size());
    }

    private String row(FileStatus e, String path, int width) {
        return (e.isDirectory() ? "d" : "-") + " " + " ".repeat(width - size(e).length()) + size(e) + " "
                + Formats.minutes(e.modificationTime()) + " " + path;
    }
}
