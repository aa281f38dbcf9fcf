package io.tarn.tools;

import io.tarn.client.TarnClient;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

/**
 * Asks every namenode of a cluster for its own status ({@link TarnClient#clusterStatusOfEach}).
 *
 * <p>The partition map comes from the first namenode of {@code tarn.namenode.address} that answers,
 * so the others are still found and shown while partition 0 is down; a namenode that does not answer
 * shows as down with its address and reason. The client that learned the map is kept for later
 * samples (the two samples of an operation rate).
 */
final class StatusProbe implements AutoCloseable {
    private final TarnConfig config;
    private TarnClient client;

    StatusProbe(TarnConfig config) {
        this.config = config;
    }

    /** Every namenode's status now; never throws for a namenode that is down. */
    ClusterSnapshot sample() throws InterruptedException {
        if (client != null) {
            try {
                return collect(client.clusterStatusOfEach());
            } catch (IOException | RuntimeException e) {
                closeClient(); // the namenode that told the map is gone: ask the configured ones again
            }
        }
        List<HostPort> configured = config.namenodes();
        List<String> errors = new ArrayList<>();
        for (List<HostPort> group : config.namenodeGroups()) {
            // A replicated group's members all go to the client, which asks the leader.
            String seed = group.stream().map(HostPort::toString).collect(Collectors.joining("|"));
            TarnClient c = TarnClient.connect(config.toBuilder().set(TarnKeys.NAMENODE_ADDRESS, seed)
                    .set(TarnKeys.NAMENODE_PARTITION, 0).set(TarnKeys.NAMENODE_MEMBER, 0).build());
            try {
                ClusterSnapshot snapshot = collect(c.clusterStatusOfEach());
                client = c;
                return snapshot;
            } catch (IOException | RuntimeException e) {
                errors.add(ErrorReporter.describe(e));
            } finally {
                if (client != c) {
                    c.close(); // it could not tell the map, or this thread was interrupted
                }
            }
        }
        return ClusterSnapshot.allDown(configured, errors);
    }

    private static ClusterSnapshot collect(Map<String, CompletableFuture<ClusterStatus>> each)
            throws InterruptedException {
        List<NamenodeView> views = new ArrayList<>();
        for (Map.Entry<String, CompletableFuture<ClusterStatus>> e : each.entrySet()) {
            int partition = views.size();
            try {
                views.add(NamenodeView.up(partition, e.getKey(), e.getValue().get()));
            } catch (ExecutionException failed) {
                views.add(NamenodeView.down(partition, e.getKey(), ErrorReporter.describe(failed)));
            }
        }
        return new ClusterSnapshot(views);
    }

    private void closeClient() {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Override
    public void close() {
        closeClient();
    }
}
