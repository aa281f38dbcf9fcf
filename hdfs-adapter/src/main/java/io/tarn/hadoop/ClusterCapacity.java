package io.tarn.hadoop;

import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import org.apache.hadoop.fs.FsStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The capacity, used and free space that {@link TarnFileSystem#getStatus} reports (what {@code hadoop
 * fs -df} prints), from the status of every namenode.
 *
 * <p>With several namenodes (docs/partitioning.md) each one manages a share of every datanode's
 * regions and reports only its share, so the cluster's figures are the sum over the namenodes of the
 * shares they see alive. A namenode that does not answer is left out with a warning naming it, as
 * {@code tarn status} does; the call fails only when none answers.
 */
final class ClusterCapacity {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterCapacity.class);

    private ClusterCapacity() {
    }

    /** Sums the shares in {@code statusOfEach} (namenode address to its status, as the client returns them). */
    static FsStatus sum(Map<String, CompletableFuture<ClusterStatus>> statusOfEach) throws IOException {
        long capacity = 0;
        long free = 0;
        int answered = 0;
        IOException firstFailure = null;
        for (Map.Entry<String, CompletableFuture<ClusterStatus>> namenode : statusOfEach.entrySet()) {
            ClusterStatus status;
            try {
                status = HadoopErrors.await(namenode.getValue());
            } catch (IOException e) {
                LOG.warn("namenode {} did not report its share of the datanodes: {}", namenode.getKey(),
                        e.getMessage());
                firstFailure = firstFailure == null ? e : firstFailure;
                continue;
            }
            answered++;
            for (DatanodeStatus d : status.datanodes()) {
                if (d.state() == DatanodeStatus.ALIVE) {
                    capacity += d.capacityBlocks() * status.blockSize();
                    free += d.freeBlocks() * status.blockSize();
                }
            }
        }
        if (answered == 0 && firstFailure != null) {
            throw firstFailure;
        }
        return new FsStatus(capacity, capacity - free, free);
    }
}
