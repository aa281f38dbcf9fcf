package io.tarn.hadoop;

import io.tarn.client.TarnClient;
import io.tarn.common.config.TarnConfig;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link TarnClient} per distinct configuration, for the file systems behind {@link TarnFs}.
 *
 * <p>Hadoop creates a new {@code AbstractFileSystem} for every {@code FileContext} and never closes
 * it, so a client per instance would leak connections and threads with every FileContext a
 * long-lived process (a YARN daemon, a job history server) makes. Sharing one per configuration
 * bounds that to one client per cluster. Their threads are daemons; they live as long as the JVM.
 */
final class SharedClients {
    private static final Map<Map<String, String>, TarnClient> CLIENTS = new ConcurrentHashMap<>();

    private SharedClients() {
    }

    /** The shared client for {@code config}, connected on first use. */
    static TarnClient get(TarnConfig config) {
        return CLIENTS.computeIfAbsent(config.describe(), k -> TarnClient.connect(config));
    }
}
