package io.tarn.tools;

import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.datanode.dram.DramDatanode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tarn datanode}: runs a DRAM datanode in the foreground until SIGTERM.
 *
 * <p>{@code --index i} lets several datanodes share one host and one configuration (as
 * {@code tarn start -d N} does): datanode i listens on the configured port plus i and keeps its
 * memory in {@code <tarn.datanode.dram.path>/dn<i>}. {@code --reuse-port} and {@code --ready-file} let
 * {@code bin/tarn} restart one datanode of a running cluster on the port it had (when the configured
 * port is 0), and know when it has registered again.
 */
@Command(name = "datanode", mixinStandardHelpOptions = true,
        description = {"Run a DRAM datanode in the foreground, logging to standard output, until SIGTERM or Ctrl-C.",
                "It registers with every namenode of tarn.namenode.address (namenode p of N manages the "
                        + "regions r with r mod N = p, so it needs at least N regions) and serves blocks on "
                        + "tarn.datanode.bind."})
final class DatanodeCommand extends DaemonCommand {
    private static final Logger LOG = LoggerFactory.getLogger(DatanodeCommand.class);
    private static final int MAX_PORT = 65_535;

    @Option(names = "--index", paramLabel = "I",
            description = "Run as the I-th datanode of this host: listen on the configured port + I (unless it is 0) "
                    + "and keep memory in <tarn.datanode.dram.path>/dn<I>.")
    private Integer index;

    @Option(names = "--reuse-port", paramLabel = "PORT",
            description = "When tarn.datanode.bind's port is 0, listen on PORT instead of any free port: the port an "
                    + "earlier start of this datanode got, so that the members of its block groups find it again "
                    + "(bin/tarn passes it when it restarts a datanode).")
    private Integer reusePort;

    @Option(names = "--ready-file", paramLabel = "FILE",
            description = "Once registered with every namenode, write the address served (host:port) to FILE, "
                    + "replacing it atomically (bin/tarn waits for it and reads the port back on a restart).")
    private Path readyFile;

    @Override
    protected TarnConfig configure(TarnConfig config) {
        if (index != null && index < 0) {
            throw new ParameterException(new CommandLine(this), "--index must not be negative");
        }
        if (reusePort != null && (reusePort < 1 || reusePort > MAX_PORT)) {
            throw new ParameterException(new CommandLine(this), "--reuse-port must be between 1 and " + MAX_PORT
                    + ", got " + reusePort);
        }
        TarnConfig indexed = index == null ? config : forIndex(config, index);
        HostPort bind = HostPort.parse(indexed.get(TarnKeys.DATANODE_BIND));
        if (reusePort == null || bind.port() != 0) {
            return indexed;
        }
        return indexed.toBuilder()
                .set(TarnKeys.DATANODE_BIND, new HostPort(bind.host(), reusePort).toString()).build();
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
            registered(datanode);
        } else {
            LOG.warn("datanode not registered with every namenode of {} after 10 s; still trying",
                    config.get(TarnKeys.NAMENODE_ADDRESS));
            // The daemon keeps serving meanwhile; the ready file follows the registration whenever it comes.
            Thread waiter = new Thread(() -> awaitThenRegistered(datanode), "tarn-datanode-ready");
            waiter.setDaemon(true);
            waiter.start();
        }
        return datanode;
    }

    private void awaitThenRegistered(DramDatanode datanode) {
        try {
            while (!datanode.awaitRegistered(Duration.ofSeconds(10))) {
                LOG.debug("datanode still not registered with every namenode");
            }
            registered(datanode);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void registered(DramDatanode datanode) {
        LOG.info("datanode registered with {} namenode(s), ids {}", datanode.namenodeCount(), ids(datanode));
        if (readyFile == null) {
            return;
        }
        InetSocketAddress at = datanode.address();
        try {
            writeAtomically(readyFile, at.getHostString() + ":" + at.getPort() + "\n");
        } catch (IOException e) {
            LOG.warn("cannot write the ready file {}: {}", readyFile, ErrorReporter.describe(e));
        }
    }

    /** Writes a temporary file beside {@code file} and renames it into place, so readers never see half of it. */
    static void writeAtomically(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            Files.writeString(tmp, text);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
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
