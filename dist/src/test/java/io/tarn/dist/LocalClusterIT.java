package io.tarn.dist;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LocalCluster}, the fixture the integration tests use, on the distribution the build
 * unpacked under target/ (the {@value LocalCluster#HOME_PROPERTY} system property).
 */
class LocalClusterIT {
    @Test
    void twoClustersRunSideBySideAndCloseWithoutTrace() throws Exception {
        Path home = LocalCluster.home();
        Path conf;
        Path run;
        try (LocalCluster a = LocalCluster.start(home, 1, Map.of());
             LocalCluster b = LocalCluster.start(home, 2, Map.of("tarn.datanode.dram.capacity", "32m"))) {
            assertThat(a.uri().getPort()).isNotEqualTo(b.uri().getPort());
            for (LocalCluster c : new LocalCluster[] {a, b}) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", c.uri().getPort()), 5_000);
                    assertThat(s.isConnected()).isTrue();
                }
            }
            LocalCluster.Outcome status = b.tarn("status", "--interval", "0");
            assertThat(status.exit()).as(status.output()).isZero();
            assertThat(status.output()).contains("datanodes: 2 (2 alive)");
            assertThat(a.tarn("status", "--interval", "0").output()).contains("datanodes: 1 (1 alive)");
            conf = a.confDir();
            run = a.runDir();
            assertThat(run.resolve("namenode-0.pid")).isRegularFile();
        }
        assertThat(Files.exists(conf)).as("configuration directory removed").isFalse();
        assertThat(Files.exists(run)).as("run directory removed").isFalse();
    }

    @Test
    void anUnknownKeyFailsWithTarnsOwnMessage() {
        assertThatThrownBy(() -> LocalCluster.start(LocalCluster.home(), 1, Map.of("tarn.datanode.dram.capacty", "1g")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("tarn start failed")
                .hasMessageContaining("unknown configuration key 'tarn.datanode.dram.capacty'");
    }
}
