package io.tarn.tools;

import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.datanode.dram.DramDatanode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tarn datanode}: runs a DRAM datanode in the foreground until SIGTERM.
 *
 * <p>{@code --index i} lets several datanodes share one host and one configuration (as
 * {@code tarn start -d N} does): datanode i listens on the configured port plus i and keeps its
 * memory in {@code <tarn.datanode.dram.path>/dn<i>}.
 */
@Command(name = "datanode", mixinStandardHelpOptions = true,
        description = {"Run a DRAM datanode in the foreground, logging to standard output, until SIGTERM or Ctrl-C.",
                "It registers with every namenode of tarn.namenode.address (namenode p of N manages the "
                        + "regions r with r mod N = p, so it needs at least N regions) and serves blocks on "
                        + "tarn.datanode.bind."})
final class DatanodeCommand extends DaemonCommand {
    private static final Logger LOG = LoggerFactory.getLogger(DatanodeCommand.class);

    @Option(names = "--index", paramLabel = "I",
            description = "Run as the I-th datanode of this host: listen on the configured port + I (unless it is 0) "
                    + "and keep memory in <tarn.datanode.dram.path>/dn<I>.")
    private Integer index;

    @Override
    protected TarnConfig configure(TarnConfig config) {
        if (index == null) {
            return config;
        }
        if (index < 0) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--index must not be negative");
        }
        return forIndex(config, index);
    }

    /** The configuration of the index-th datanode on a host. */
    static TarnConfig forIndex(TarnConfig config, int index) {
        HostPort bind = HostPort.parse(config.get(TarnKeys.DATANODE_BIND));
        int port = bind.port() == 0 ? 0 : bind.port() + index;
        return config.toBuilder()
                .set(TarnKeys.DATANODE_BIND, new HostPort(bind.host(), port).toString())
                .set(TarnKeys.DRAM_PATH, Path.of(config.get(TarnKeys.DRAM_PATH)).resolve("dn" + index).toString())
                .build();
    }

    @Override
    protected AutoCloseable start(TarnConfig config) throws IOException, InterruptedException {
        DramDatanode datanode = DramDatanode.start(config);
        LOG.info("datanode serving at {}, namenodes {}", datanode.address(), config.get(TarnKeys.NAMENODE_ADDRESS));
        if (datanode.awaitRegistered(Duration.ofSeconds(10))) {
            LOG.info("datanode registered with {} namenode(s), ids {}", datanode.namenodeCount(), ids(datanode));
        } else {
            LOG.warn("datanode not registered with every namenode of {} after 10 s; still trying",
                    config.get(TarnKeys.NAMENODE_ADDRESS));
        }
        return datanode;
    }

    /** The id each namenode gave this datanode, in partition order. */
    private static List<Integer> ids(DramDatanode datanode) {
        List<Integer> ids = new ArrayList<>();
        for (int p = 0; p < datanode.namenodeCount(); p++) {
            ids.add(datanode.datanodeId(p));
        }
        return ids;
    }
}
