package io.tarn.tools;

import io.tarn.client.TarnClient;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Base of CLI tests that share one single-datanode MiniCluster and a client per test class. */
abstract class WithCluster {
    static MiniCluster cluster;
    static TarnClient client;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = MiniCluster.builder().datanodes(1).start();
        client = TarnClient.connect(cluster.config());
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
