package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.common.fs.TarnPath;
import io.tarn.client.cli.Formats;
import io.tarn.common.fs.FileStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.List;

/** {@code -du [-s] [-h]}: bytes held by files and directory trees. */
@Command(name = "-du", aliases = "du",
        description = {"Show the bytes held under each path: for a directory, one line per entry (its whole "
                + "subtree for subdirectories); with -s, one line per argument. Lines are 'SIZE PATH'.",
                "Sizes are file lengths; Tarn keeps one copy, so no replicated size is shown."})
final class Du extends FsSubcommand {
    @Option(names = "-s", description = "Summarise: one total per argument.")
    private boolean summary;

    @Option(names = "-h", description = "Human-readable sizes (1.5 M, 2 G).")
    private boolean human;

    @Parameters(paramLabel = "PATH", arity = "0..*", description = "Paths (default: /).")
    private List<String> paths = List.of("/");

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        for (String arg : paths) {
            String path = absolute(arg);
            try {
                FileStatus status = client.getStatus(path);
                if (summary || !status.isDirectory()) {
                    line(total(client, path, status), path);
                } else {
                    for (FileStatus e : client.list(path)) {
                        String p = TarnPath.child(path, e.name());
                        line(total(client, p, e), p);
                    }
                }
            } catch (IOException e) {
                error(arg, e);
            }
        }
        return true;
    }

    private void line(long bytes, String path) {
        out().printf("%-12s %s%n", human ? Formats.human(bytes) : Long.toString(bytes), path);
    }

    /** Bytes of a file, or of every file under a directory. */
    static long total(TarnClient client, String path, FileStatus status) throws IOException {
        if (!status.isDirectory()) {
            return status.size();
        }
        long sum = 0;
        for (FileStatus e : client.list(path)) {
            sum += total(client, TarnPath.child(path, e.name()), e);
        }
        return sum;
    }
}
