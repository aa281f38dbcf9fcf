package io.tarn.client.cli.fs;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.common.fs.TarnPath;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code -put}: copies local files (or standard input) into Tarn. */
@Command(name = "-put", aliases = {"put", "-copyFromLocal"},
        description = {"Copy local files into Tarn. With several sources, or when DST is an existing directory, "
                + "each file lands in DST under its own name. '-' as the only source reads standard input.",
                "The parent of the target must exist. A file that fails half-way is deleted."})
final class Put extends FsSubcommand {
    @Option(names = "-f", description = "Overwrite an existing target file.")
    private boolean force;

    @Parameters(paramLabel = "LOCALSRC... DST", arity = "2..*",
            description = "Local files (or '-' for standard input), then the Tarn target file or directory.")
    private List<String> arguments;

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        List<String> all = arguments;
        String dst = absolute(all.get(all.size() - 1));
        List<String> srcs = all.subList(0, all.size() - 1);
        boolean intoDirectory = srcs.size() > 1 || isDirectory(client, dst);
        for (String src : srcs) {
            String target = intoDirectory ? TarnPath.child(dst, Path.of(src).getFileName().toString()) : dst;
            try {
                copy(client, src, target);
            } catch (IOException e) {
                error(src.equals("-") ? target : src + " -> " + target, e);
            }
        }
        return true;
    }

    private static boolean isDirectory(TarnClient client, String path) throws IOException {
        try {
            return client.getStatus(path).isDirectory();
        } catch (java.io.FileNotFoundException e) {
            return false;
        }
    }

    private void copy(TarnClient client, String src, String target) throws IOException {
        if (!force && client.exists(target)) {
            throw TarnException.of(ErrorCode.FILE_EXISTS, target);
        }
        try (InputStream in = src.equals("-") ? System.in : Files.newInputStream(Path.of(src))) {
            TarnOutputStream out = client.create(target, new CreateOptions(force, false, -1));
            try {
                Copy.stream(in, out);
                out.close();
            } catch (IOException | RuntimeException e) {
                // Leave no truncated file behind that a later job could mistake for complete data.
                try {
                    client.delete(target, false);
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
    }
}
