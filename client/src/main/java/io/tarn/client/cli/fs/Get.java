package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.common.fs.TarnPath;
import io.tarn.client.TarnInputStream;
import io.tarn.common.fs.FileStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** {@code -get}: copies files (directories recursively) from Tarn to the local file system. */
@Command(name = "-get", aliases = {"get", "-copyToLocal"},
        description = {"Copy files from Tarn to the local file system; directories are copied recursively. "
                + "With several sources, or when LOCALDST is an existing directory, each lands in it under its own name.",
                "A local file that fails half-way is deleted."})
final class Get extends FsSubcommand {
    @Option(names = "-f", description = "Overwrite existing local files.")
    private boolean force;

    @Parameters(paramLabel = "SRC... LOCALDST", arity = "2..*",
            description = "Tarn files or directories, then the local target.")
    private List<String> arguments;

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        Path dst = Path.of(arguments.get(arguments.size() - 1));
        List<String> srcs = arguments.subList(0, arguments.size() - 1);
        boolean intoDirectory = srcs.size() > 1 || Files.isDirectory(dst);
        for (String arg : srcs) {
            String src = absolute(arg);
            Path target = intoDirectory ? dst.resolve(lastName(src)) : dst;
            try {
                copy(client, src, client.getStatus(src), target);
            } catch (IOException e) {
                error(arg, e);
            }
        }
        return true;
    }

    private void copy(TarnClient client, String src, FileStatus status, Path target) throws IOException {
        if (status.isDirectory()) {
            Files.createDirectories(target);
            for (FileStatus child : client.list(src)) {
                copy(client, TarnPath.child(src, child.name()), child, target.resolve(child.name()));
            }
            return;
        }
        if (!force && Files.exists(target)) {
            throw new FileAlreadyExistsException(target.toString());
        }
        try (TarnInputStream in = client.open(src)) {
            try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                Copy.stream(in, out);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(target);
                throw e;
            }
        }
    }
}
