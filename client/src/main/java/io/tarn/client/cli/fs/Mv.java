package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.List;

/** {@code -mv}: renames with HDFS semantics (into DST when it is a directory). */
@Command(name = "-mv", aliases = "mv",
        description = "Move (rename) files or directories. When DST is an existing directory the sources move into it; "
                + "several sources require that.")
final class Mv extends FsSubcommand {
    @Parameters(paramLabel = "SRC... DST", arity = "2..*", description = "Paths to move, then the destination.")
    private List<String> arguments;

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        String dst = absolute(arguments.get(arguments.size() - 1));
        List<String> srcs = arguments.subList(0, arguments.size() - 1);
        if (srcs.size() > 1) {
            try {
                if (!client.getStatus(dst).isDirectory()) {
                    error(dst + ": Not a directory (required with several sources)");
                    return false;
                }
            } catch (IOException e) {
                error(dst, e);
                return false;
            }
        }
        for (String src : srcs) {
            try {
                client.rename(absolute(src), dst);
            } catch (IOException e) {
                error(src + " -> " + dst, e);
            }
        }
        return true;
    }
}
