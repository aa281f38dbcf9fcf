package io.tarn.tools;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tarn conf}: prints the effective configuration, or the documented template of tarn-site.conf. */
@Command(name = "conf", mixinStandardHelpOptions = true,
        description = {"Print the effective configuration: every key = value after the configuration file, "
                + "-Dtarn.* system properties and -D options are applied."})
final class ConfCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--template",
            description = "Print the documented tarn-site.conf (every key, commented out, with its default) instead.")
    private boolean template;

    @Override
    public Integer call() {
        TarnCli cli = TarnCli.of(spec);
        if (template) {
            cli.out().print(ConfTemplate.render());
        } else {
            for (Map.Entry<String, String> e : cli.config().describe().entrySet()) {
                cli.out().println(e.getKey() + " = " + e.getValue());
            }
        }
        cli.out().flush();
        return 0;
    }
}
