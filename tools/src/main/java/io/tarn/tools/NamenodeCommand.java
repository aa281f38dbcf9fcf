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
                        + "namenode gets the whole list in tarn.namenode.address and its index with --partition. "
                        + "A member of a replicated group (an entry of members separated by '|') also gets its "
                        + "place in the group with --member."})
final class NamenodeCommand extends DaemonCommand {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeCommand.class);

    @Option(names = "--partition", paramLabel = "I",
            description = "Serve partition I: the I-th entry (from 0) of tarn.namenode.address. Sets "
                    + "tarn.namenode.partition, which defaults to 0; I must be below the number of entries.")
    private Integer partition;

    @Option(names = "--member", paramLabel = "I",
            description = "Be member I (from 0) of the replicated group that serves the partition: the I-th "
                    + "'|'-separated address of its entry of tarn.namenode.address. Sets tarn.namenode.member, "
                    + "which defaults to 0.")
    private Integer member;

    @Override
    protected TarnConfig configure(TarnConfig config) {
        TarnConfig.Builder b = config.toBuilder();
        if (partition != null) {
            b.set(TarnKeys.NAMENODE_PARTITION, partition);
        }
        if (member != null) {
            b.set(TarnKeys.NAMENODE_MEMBER, member);
        }
        return partition == null && member == null ? config : b.build();
    }

    @Override
    protected AutoCloseable start(TarnConfig config) throws IOException {
        Namenode namenode = Namenode.start(config);
        LOG.info("namenode of partition {} of {}{} listening at {} (tarn.namenode.address = {})",
                config.get(TarnKeys.NAMENODE_PARTITION), config.namenodes().size(),
                namenode.serving() && config.namenodeGroups().get(config.get(TarnKeys.NAMENODE_PARTITION)).size() == 1
                        ? "" : ", member " + config.get(TarnKeys.NAMENODE_MEMBER) + " of its replicated group",
                namenode.address(), config.get(TarnKeys.NAMENODE_ADDRESS));
        return namenode;
    }
}
