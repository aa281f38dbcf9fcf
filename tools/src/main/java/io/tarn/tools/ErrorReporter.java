package io.tarn.tools;

import io.tarn.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Turns an exception escaping a command into one line {@code tarn <command>: <message>} on standard
 * error and an exit code (2 for configuration errors, 1 for everything else). The stack trace is
 * printed only with {@code --debug}: users of a shell want the reason, not the call chain.
 */
public final class ErrorReporter implements CommandLine.IExecutionExceptionHandler {
    private final TarnCli cli;

    ErrorReporter(TarnCli cli) {
        this.cli = cli;
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parseResult) {
        PrintStream err = cli.err();
        err.println(prefix(cmd.getCommandSpec()) + ": " + describe(e));
        if (cli.debug()) {
            err.print(stackTrace(e));
        }
        err.flush();
        if (e instanceof ConfigException || e instanceof CommandLine.ParameterException) {
            return TarnCli.EXIT_USAGE;
        }
        return TarnCli.EXIT_FAILURE;
    }

    /** "tarn fs" for any fs subcommand: the top-level command a user typed. */
    static String prefix(CommandSpec spec) {
        CommandSpec s = spec;
        while (s.parent() != null && s.parent().parent() != null) {
            s = s.parent();
        }
        return s.parent() == null ? s.name() : s.parent().name() + " " + s.name();
    }

    /** A one-line reason: the message of the most telling exception in the cause chain. */
    public static String describe(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t
                && (t.getMessage() == null || t instanceof CompletionException
                || t instanceof ExecutionException)) {
            t = t.getCause();
        }
        String message = t.getMessage();
        if (message == null || message.isBlank()) {
            return t.getClass().getSimpleName();
        }
        if (t instanceof FileNotFoundException || t instanceof ConfigException) {
            return message;
        }
        return t instanceof IOException || t instanceof IllegalArgumentException
                ? message : t.getClass().getSimpleName() + ": " + message;
    }

    /** The stack trace with causes, formatted without {@link Throwable#printStackTrace()}. */
    public static String stackTrace(Throwable e) {
        StringBuilder sb = new StringBuilder();
        Throwable t = e;
        String lead = "";
        int depth = 0;
        while (t != null && depth++ < 20) {
            sb.append(lead).append(t).append(System.lineSeparator());
            for (StackTraceElement el : t.getStackTrace()) {
                sb.append("\tat ").append(el).append(System.lineSeparator());
            }
            lead = "Caused by: ";
            t = t.getCause() == t ? null : t.getCause();
        }
        return sb.toString();
    }
}
