package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.client.TarnInputStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.List;

/** {@code -cat}: writes files to standard output, byte for byte. */
@Command(name = "-cat", aliases = "cat", description = "Write the contents of files to standard output.")
final class Cat extends FsSubcommand {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Files to print.")
    private List<String> paths;

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        for (String arg : paths) {
            try (TarnInputStream in = client.open(absolute(arg))) {
                Copy.stream(in, out());
            } catch (IOException e) {
                out().flush();
                error(arg, e);
            }
        }
        return true;
    }
}
