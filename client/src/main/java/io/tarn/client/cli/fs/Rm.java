package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;

/** {@code -rm [-r] [-f]}: deletes files, and directories with -r. There is no trash. */
@Command(name = "-rm", aliases = "rm",
        description = "Delete files, and with -r directories with their contents. Tarn has no trash: deletion is immediate.")
final class Rm extends FsSubcommand {
    @Option(names = {"-r", "-R"}, description = "Delete directories and their contents.")
    private boolean recursive;

    @Option(names = "-f", description = "Do not report paths that do not exist.")
    private boolean force;

    @Option(names = "-skipTrash", description = "Accepted for compatibility with hdfs dfs; there is no trash.")
    private boolean skipTrash;

    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Paths to delete.")
    private List<String> paths;

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        for (String arg : paths) {
            String path = absolute(arg);
            try {
                // Like hdfs dfs -rm, refuse any directory without -r, even an empty one.
                if (!recursive && client.getStatus(path).isDirectory()) {
                    throw TarnException.of(ErrorCode.IS_A_DIRECTORY, path);
                }
                if (!client.delete(path, recursive)) {
                    throw TarnException.of(ErrorCode.FILE_NOT_FOUND, path);
                }
            } catch (FileNotFoundException e) {
                if (!force) {
                    error(arg, e);
                }
            } catch (IOException e) {
                error(arg, e);
            }
        }
        return true;
    }
}
