package io.tarn.tools;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Every command and every flag is documented in its --help, which the README points users at. */
class HelpTest {
    @Test
    void everyCommandAndOptionHasADescription() {
        CommandLine root = TarnCli.commandLine(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream()));
        List<String> undocumented = new ArrayList<>();
        check(root.getCommandSpec(), undocumented);
        assertThat(undocumented).isEmpty();
    }

    private static void check(CommandSpec spec, List<String> undocumented) {
        if (spec.usageMessage().description().length == 0 && spec.parent() != null
                && !spec.name().equals("help")) {
            undocumented.add(spec.qualifiedName());
        }
        for (ArgSpec arg : spec.args()) {
            if (arg.description().length == 0 || arg.description()[0].isBlank()) {
                undocumented.add(spec.qualifiedName() + " " + (arg.isOption()
                        ? ((CommandLine.Model.OptionSpec) arg).longestName() : arg.paramLabel()));
            }
        }
        for (CommandLine sub : spec.subcommands().values()) {
            check(sub.getCommandSpec(), undocumented);
        }
    }

    @Test
    void helpListsTheCommands() {
        Cli.Result r = Cli.run("--help");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("namenode", "datanode", "status", "iobench", "conf");
        assertThat(Cli.run("iobench", "--help").out()).contains("-t", "-f", "-s", "-k", "-b", "-w", "-e", "--json");
    }
}
