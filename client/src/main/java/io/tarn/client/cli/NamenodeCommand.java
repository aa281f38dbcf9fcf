package io.tarn.client.cli;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.namenode.Namenode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

import java.io.IOException;

/** {@code tarn namenode}: runs a namenode in the foreground until SIGTERM. */
@Command(name = "namenode", mixinStandardHelpOptions = true,
        description = {"Run a namenode in the foreground, logging to standard output, until SIGTERM or Ctrl-C.",
                "It listens on tarn.namenode.bind, or on tarn.namenode.address when that is empty."})
final class NamenodeCommand extends DaemonCommand {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeCommand.class);

    @Override
    protected AutoCloseable start(TarnConfig config) throws IOException {
        Namenode namenode = Namenode.start(config);
        LOG.info("namenode serving at {} (clients use tarn.namenode.address = {})", namenode.address(),
                config.get(TarnKeys.NAMENODE_ADDRESS));
        return namenode;
    }
}
