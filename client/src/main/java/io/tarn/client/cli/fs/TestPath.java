package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.common.fs.FileStatus;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.FileNotFoundException;
import java.io.IOException;

/** {@code -test -e|-d|-f|-s|-z PATH}: answers through the exit code only, for shell scripts. */
@Command(name = "-test", aliases = "test",
        description = "Test a path; exit 0 when the test holds, 1 when it does not (or the path is missing). Prints nothing.")
final class TestPath extends FsSubcommand {
    @ArgGroup(exclusive = true, multiplicity = "1")
    private Check check;

    @Parameters(paramLabel = "PATH", arity = "1", description = "Path to test.")
    private String path;

    /** Exactly one of the checks. */
    static final class Check {
        @Option(names = "-e", description = "The path exists.")
        boolean exists;
        @Option(names = "-d", description = "The path is a directory.")
        boolean directory;
        @Option(names = "-f", description = "The path is a file.")
        boolean file;
        @Option(names = "-s", description = "The path is a file longer than zero bytes.")
        boolean nonEmpty;
        @Option(names = "-z", description = "The path is a file of zero bytes.")
        boolean empty;
    }

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        FileStatus s;
        try {
            s = client.getStatus(absolute(path));
        } catch (FileNotFoundException e) {
            return false;
        }
        return check.exists
                || check.directory && s.isDirectory()
                || check.file && s.isFile()
                || check.nonEmpty && s.isFile() && s.size() > 0
                || check.empty && s.isFile() && s.size() == 0;
    }
}
