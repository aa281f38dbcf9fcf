package io.tarn.tools;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.namenode.Namenode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;

/** {@code tarn namenode}: runs a namenode in the foreground until SIGTERM. */
@Command(name = "namenode", mixinStandardHelpOptions = true,
        description = {"Run a namenode in the foreground, logging to standard output, until SIGTERM or Ctrl-C.",
                "It listens on tarn.namenode.bind, or, when that is empty, on its own entry of "
                        + "tarn.namenode.address (the entry of its partition). With several namenodes, every "
                        + "namenode gets the whole list in tarn.namenode.address and its index with --partition."})
final class NamenodeCommand extends DaemonCommand {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeCommand.class);

    @Option(names = "--partition", paramLabel = "I",
            description = "Serve partition I: the I-th entry (from 0) of tarn.namenode.address. Sets "
                    + "tarn.namenode.partition, which defaults to 0; I must be below the number of entries.")
    private Integer partition;

    @Override
    protected TarnConfig configure(TarnConfig config) {
        return partition == null ? config : config.toBuilder().set(TarnKeys.NAMENODE_PARTITION, partition).build();
    }

    @Override
    protected AutoCloseable start(TarnConfig config) throws IOException {
        Namenode namenode = Namenode.start(config);
        LOG.info("namenode of partition {} of {} serving at {} (tarn.namenode.address = {})",
                config.get(TarnKeys.NAMENODE_PARTITION), config.namenodes().size(), namenode.address(),
                config.get(TarnKeys.NAMENODE_ADDRESS));
        return namenode;
    }
}
