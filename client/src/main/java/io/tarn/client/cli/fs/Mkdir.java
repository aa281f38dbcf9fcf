package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.List;

/** {@code -mkdir [-p]}: creates directories. */
@Command(name = "-mkdir", aliases = "mkdir",
        description = "Create directories. Without -p the parent must exist and the path must not.")
final class Mkdir extends FsSubcommand {
    @Option(names = "-p", description = "Create missing parents; an existing directory is not an error.")
    private boolean parents;

    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Directories to create.")
    private List<String> paths;

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        for (String arg : paths) {
            String path = absolute(arg);
            try {
                if (!parents) {
                    checkCreatable(client, path);
                }
                client.mkdirs(path);
            } catch (IOException e) {
                error(arg, e);
            }
        }
        return true;
    }

    /** The shell's -mkdir without -p: the path is new and its parent is an existing directory. */
    private static void checkCreatable(TarnClient client, String path) throws IOException {
        if (client.exists(path)) {
            throw TarnException.of(ErrorCode.FILE_EXISTS, path);
        }
        int slash = path.lastIndexOf('/');
        String parent = slash <= 0 ? "/" : path.substring(0, slash);
        FileStatus p = client.getStatus(parent);
        if (!p.isDirectory()) {
            throw TarnException.of(ErrorCode.NOT_A_DIRECTORY, parent);
        }
    }
}
