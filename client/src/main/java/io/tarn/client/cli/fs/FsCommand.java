package io.tarn.client.cli.fs;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tarn fs}: the file system shell, with the commands and output of {@code hdfs dfs} where Tarn
 * has the concept. Paths are absolute Tarn paths; a relative path is taken from {@code /}, and a
 * {@code tarn://host:port} prefix is dropped (the namenode is the configured one).
 */
@Command(name = "fs", synopsisSubcommandLabel = "-COMMAND",
        description = {"File system shell in the style of 'hdfs dfs'. Errors print 'tarn fs: <reason>' and exit 1.",
                "Paths are absolute; a relative path is taken from /. Run 'tarn fs -COMMAND --help' for a command's options."},
        subcommands = {Ls.class, Mkdir.class, Put.class, Get.class, Cat.class, Rm.class, Mv.class, Stat.class,
                Du.class, Touchz.class, TestPath.class})
public final class FsCommand {
    @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
    private boolean help;
}
