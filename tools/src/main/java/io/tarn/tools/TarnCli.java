package io.tarn.tools;

import io.tarn.tools.bench.FailoverBench;
import io.tarn.tools.bench.IoBench;
import io.tarn.tools.chaos.ChaosCommand;
import io.tarn.common.config.TarnConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code tarn} command line: daemons, cluster status, the file system shell and iobench.
 *
 * <p>{@code bin/tarn} runs {@link #main}; tests build a {@link CommandLine} with
 * {@link #commandLine(PrintStream, PrintStream)} and capture both streams. The options declared
 * here ({@code -D}, {@code --config}, {@code --debug}) are inherited by every subcommand, so they may
 * follow any command name. Exit codes: 0 success, 1 the operation failed, 2 usage or configuration
 * error.
 */
@Command(name = "tarn", mixinStandardHelpOptions = true, versionProvider = TarnCli.Version.class,
        description = "Tarn, a storage tier for Spark and Hadoop.",
        subcommands = {NamenodeCommand.class, DatanodeCommand.class, StatusCommand.class, FsckCommand.class,
                StartPlanCommand.class, SecretCommand.class, IoBench.class, FailoverBench.class, ConfCommand.class,
                ChaosCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Run 'tarn <command> --help' for the options of a command."})
public final class TarnCli {
    /** Exit code for a failed operation. */
    public static final int EXIT_FAILURE = 1;
    /** Exit code for a usage or configuration error (picocli's default for usage errors). */
    public static final int EXIT_USAGE = 2;

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> overrides = new LinkedHashMap<>();

    @Option(names = "--config", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "Configuration file to read instead of the one named by the tarn.conf system property "
                    + "(bin/tarn sets it to $TARN_CONF_DIR/tarn-site.conf).")
    private Path configFile;

    @Option(names = "--debug", scope = ScopeType.INHERIT,
            description = "Print the stack trace of an error, not just its message.")
    private boolean debug;

    private TarnCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /**
     * Sets a configuration key for this invocation; wins over the configuration file and system properties.
     * A method rather than a map field so that values given before and after a subcommand name accumulate.
     */
    @Option(names = "-D", paramLabel = "key=value", scope = ScopeType.INHERIT,
            description = "Set a configuration key (repeatable; -Dkey=value or -D key=value). "
                    + "Wins over the configuration file and -Dtarn.* JVM system properties.")
    void define(String keyValue) {
        int eq = keyValue.indexOf('=');
        if (eq <= 0) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "-D expects key=value, got '" + keyValue + "'");
        }
        overrides.put(keyValue.substring(0, eq).trim(), keyValue.substring(eq + 1).trim());
    }

    /** Runs the CLI and exits the JVM with its exit code. */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        int code = commandLine(out, System.err).execute(args);
        out.flush();
        System.exit(code);
    }

    /** A command line writing to the given streams, for {@link #main} and for in-process tests. */
    public static CommandLine commandLine(PrintStream out, PrintStream err) {
        TarnCli cli = new TarnCli(out, err);
        CommandLine cmd = new CommandLine(cli);
        cmd.setOverwrittenOptionsAllowed(true);
        cmd.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
        cmd.setErr(new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
        cmd.setExecutionExceptionHandler(new ErrorReporter(cli));
        return cmd;
    }

    /** The TarnCli at the root of the command a subcommand belongs to. */
    public static TarnCli of(CommandSpec spec) {
        return (TarnCli) spec.root().userObject();
    }

    /** The effective configuration: defaults, file, system properties, then -D overrides. */
    public TarnConfig config() {
        return ConfigLoader.load(configFile, System.getProperties(), overrides);
    }

    /** Standard output. */
    public PrintStream out() {
        return out;
    }

    /** Standard error: error messages and iobench progress. */
    public PrintStream err() {
        return err;
    }

    /** True with --debug: errors show their stack trace. */
    public boolean debug() {
        return debug;
    }

    /** Reports the version recorded in the jar's manifest, or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = TarnCli.class.getPackage().getImplementationVersion();
            return new String[] {"tarn " + (v == null ? "(development build)" : v)};
        }
    }
}
