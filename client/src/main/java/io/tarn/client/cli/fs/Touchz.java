package io.tarn.client.cli.fs;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.common.fs.FileStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;

/** {@code -touchz}: creates empty files. */
@Command(name = "-touchz", aliases = "touchz",
        description = "Create empty files. An existing empty file is left as it is (Tarn cannot set times); "
                + "an existing non-empty file is an error.")
final class Touchz extends FsSubcommand {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Files to create.")
    private List<String> paths;

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        for (String arg : paths) {
            String path = absolute(arg);
            try {
                FileStatus existing = statusOrNull(client, path);
                if (existing == null) {
                    client.create(path, new CreateOptions(false, false, -1)).close();
                } else if (existing.isDirectory()) {
                    error(arg + ": Is a directory");
                } else if (existing.size() != 0) {
                    error(arg + ": Not a zero-length file");
                }
            } catch (IOException e) {
                error(arg, e);
            }
        }
        return true;
    }

    private static FileStatus statusOrNull(TarnClient client, String path) throws IOException {
        try {
            return client.getStatus(path);
        } catch (FileNotFoundException e) {
            return null;
        }
    }
}
