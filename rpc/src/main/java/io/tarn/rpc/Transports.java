package io.tarn.rpc;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.rpc.tcp.TcpTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Chooses the transport named by {@code tarn.transport}.
 *
 * <p>{@code auto} probes for RDMA without touching any DiSNI class (a missing native library would
 * poison the JVM's class loading for good) and logs why it settles on TCP. {@code rdma} fails fast
 * with the reason when RDMA cannot work here.
 */
public final class Transports {
    private static final Logger LOG = LoggerFactory.getLogger(Transports.class);

    private Transports() {
    }

    /** A new transport for the configuration; the caller closes it. */
    public static Transport create(TarnConfig config) {
        return create(config, 0);
    }

    /**
     * A new transport for the configuration whose I/O threads go on polling for {@code pollNanos}
     * after their last work before they sleep (a server's choice: see {@code tarn.namenode.poll}).
     */
    public static Transport create(TarnConfig config, long pollNanos) {
        TransportKind kind = config.get(TarnKeys.TRANSPORT);
        switch (kind) {
            case TCP:
                return new TcpTransport(config, pollNanos);
            case RDMA: {
                String why = rdmaUnavailableReason();
                throw new IllegalStateException("tarn.transport = rdma, but RDMA cannot be used here: "
                        + (why != null ? why : "the RDMA transport is not built into this release yet")
                        + ". Use tarn.transport = tcp or auto.");
            }
            case AUTO:
            default: {
                String why = rdmaUnavailableReason();
                LOG.info("tarn.transport = auto: using TCP ({})",
                        why != null ? why : "the RDMA transport is not built into this release yet");
                return new TcpTransport(config, pollNanos);
            }
        }
    }

    /** Why RDMA is unusable on this host, or null when the host looks RDMA-capable. */
    public static String rdmaUnavailableReason() {
        Path ib = Path.of("/sys/class/infiniband");
        try (Stream<Path> devices = Files.isDirectory(ib) ? Files.list(ib) : Stream.empty()) {
            if (devices.findAny().isEmpty()) {
                return "no RDMA device under /sys/class/infiniband";
            }
        } catch (IOException e) {
            return "cannot read /sys/class/infiniband: " + e.getMessage();
        }
        String libPath = System.getProperty("java.library.path", "");
        boolean found = false;
        for (String dir : libPath.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isRegularFile(Path.of(dir, "libdisni.so"))) {
                found = true;
                break;
            }
        }
        if (!found) {
            return "libdisni.so not found on java.library.path (" + libPath + ")";
        }
        if (!Object.class.getModule().isExported("sun.nio.ch", Transports.class.getModule())) {
            return "sun.nio.ch is not exported: add --add-exports java.base/sun.nio.ch=ALL-UNNAMED";
        }
        return null;
    }
}
