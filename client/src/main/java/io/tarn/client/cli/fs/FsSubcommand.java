package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.client.cli.ErrorReporter;
import io.tarn.client.cli.TarnCli;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * Base of one {@code tarn fs -COMMAND}: connects a client, runs the command, and reports errors per
 * argument like {@code hdfs dfs} does (the command goes on with the next argument and exits 1 at the
 * end). Only {@code --help} is a standard option here, because {@code -h} means "human-readable".
 */
abstract class FsSubcommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
    private boolean help;

    private TarnCli cli;
    private boolean failed;

    @Override
    public final Integer call() throws Exception {
        cli = TarnCli.of(spec);
        boolean ok;
        try (TarnClient client = TarnClient.connect(cli.config())) {
            ok = execute(client);
        } finally {
            cli.out().flush();
        }
        return ok && !failed ? 0 : TarnCli.EXIT_FAILURE;
    }

    /** Runs the command; returns false to exit with 1 without a message (as -test does). */
    protected abstract boolean execute(TarnClient client) throws IOException;

    protected PrintStream out() {
        return cli.out();
    }

    /** Reports a failure concerning one argument; the command continues and exits with 1. */
    protected void error(String path, Exception e) {
        error(path + ": " + reason(e));
        if (cli.debug()) {
            cli.err().print(ErrorReporter.stackTrace(e));
            cli.err().flush();
        }
    }

    /** Reports a failure; the command exits with 1. */
    protected void error(String message) {
        cli.err().println("tarn fs: " + spec.name() + ": " + message);
        cli.err().flush();
        failed = true;
    }

    /** A short reason in the words of a Unix shell, chosen by exception type and error code. */
    static String reason(Exception e) {
        if (e instanceof TarnError) {
            ErrorCode code = ((TarnError) e).code();
            switch (code) {
                case FILE_NOT_FOUND: return "No such file or directory";
                case PARENT_NOT_FOUND: return "No such file or directory (parent directory does not exist)";
                case FILE_EXISTS: return "File exists";
                case NOT_A_DIRECTORY: return "Not a directory";
                case IS_A_DIRECTORY: return "Is a directory";
                case DIRECTORY_NOT_EMPTY: return "Directory is not empty";
                default: return ErrorReporter.describe(e);
            }
        }
        if (e instanceof FileNotFoundException || e instanceof java.nio.file.NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException) {
            return "File exists";
        }
        return ErrorReporter.describe(e);
    }

    /** An absolute Tarn path: tarn://authority is dropped, a relative path is taken from /. */
    static String absolute(String path) {
        String p = path;
        if (p.startsWith("tarn://")) {
            int slash = p.indexOf('/', "tarn://".length());
            p = slash < 0 ? "/" : p.substring(slash);
        }
        return p.startsWith("/") ? p : "/" + p;
    }

    /** The last component of a path (the path itself for "/"). */
    static String lastName(String path) {
        String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        int slash = p.lastIndexOf('/');
        return slash < 0 || p.length() == 1 ? p : p.substring(slash + 1);
    }
}
