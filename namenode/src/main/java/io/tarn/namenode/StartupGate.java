package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a namenode of several serves while it starts and copies the directory tree from another:
 * datanode and status operations (and GET_PARTITIONS) go through, directory changes from the
 * coordinator are parked to be applied on top of the copy, everything else answers RETRY.
 *
 * <p>{@link Namenode#start} shuts the gate before the server is bound ({@link #shut}) and opens it
 * once the tree is in ({@link #open}); {@link NamenodeService#handle} asks {@link #holds} of every
 * request while {@link #starting()}, one volatile read once started. Parked requests are replayed
 * in arrival order, each answered exactly once; a single namenode never shuts the gate.
 */
final class StartupGate {
    private static final Logger LOG = LoggerFactory.getLogger(StartupGate.class);

    private final Partitioning partitioning;
    /** Several namenodes: true from {@link #shut} until {@link #open}. */
    private volatile boolean starting;
    /** Directory changes from the coordinator that arrived while starting, applied once the tree is in. */
    private final List<RpcRequest> parked = new ArrayList<>();

    StartupGate(Partitioning partitioning) {
        this.partitioning = partitioning;
    }

    /** Several namenodes: from now until {@link #open}, serve only what needs no directory. */
    void shut() {
        starting = partitioning.count() > 1;
    }

    /** True between {@link #shut} and {@link #open} with several namenodes. */
    boolean starting() {
        return starting;
    }

    /**
     * While starting: parks a directory change, or answers RETRY to what needs the tree.
     *
     * @return true when the request was parked or answered here
     */
    boolean holds(RpcRequest request) {
        switch (request.opcode()) {
            case Opcode.PING, Opcode.GET_PARTITIONS, Opcode.CLUSTER_STATUS, Opcode.FSCK, Opcode.REGISTER_DATANODE,
                 Opcode.HEARTBEAT, Opcode.DEREGISTER_DATANODE -> {
                return false;
            }
            case Opcode.DIR_MKDIR, Opcode.DIR_DELETE, Opcode.DIR_RENAME, Opcode.DIR_SET_ATTR,
                 Opcode.DIR_SET_REPLICATION, Opcode.DIR_SEAL, Opcode.DIR_UNSEAL -> {
                synchronized (parked) {
                    if (starting) {
                        parked.add(request);
                        return true;
                    }
                }
                return false;
            }
            default -> {
                request.fail(ErrorCode.RETRY, partitioning.describe(partitioning.partition())
                        + " is starting: it is copying the directory tree from another namenode");
                return true;
            }
        }
    }

    /**
     * Ends {@link #shut}: hands the parked directory changes in order to {@code handler}, then lets
     * everything through. Does nothing when the gate is open.
     */
    void open(Consumer<RpcRequest> handler) {
        List<RpcRequest> replay;
        synchronized (parked) {
            starting = false;
            replay = new ArrayList<>(parked);
            parked.clear();
        }
        for (RpcRequest r : replay) {
            try {
                handler.accept(r);
            } catch (RuntimeException e) {
                LOG.warn("{} parked while starting failed", Opcode.name(r.opcode()), e);
                r.fail(ErrorCode.INTERNAL, Opcode.name(r.opcode()) + " failed on the server: " + e);
            }
        }
    }
}
