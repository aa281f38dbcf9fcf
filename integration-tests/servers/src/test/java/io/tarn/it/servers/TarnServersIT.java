package io.tarn.it.servers;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fixture itself, without Hadoop: two clusters start side by side in one JVM, each namenode
 * accepts TCP connections, and no Tarn server class leaks onto this module's class path.
 */
class TarnServersIT {

    @Test
    void twoClustersStartAcceptConnectionsAndStop() throws Exception {
        try (TarnServers a = TarnServers.start(1, Map.of());
             TarnServers b = TarnServers.start(2, Map.of("tarn.datanode.dram.capacity", "32m"))) {
            assertThat(a.uri().getScheme()).isEqualTo("tarn");
            assertThat(a.uri().getPort()).isNotEqualTo(b.uri().getPort());
            for (TarnServers s : new TarnServers[] {a, b}) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", s.uri().getPort()), 5_000);
                    assertThat(socket.isConnected()).isTrue();
                }
            }
        }
    }

    @Test
    void serverClassesStayInTheirOwnLoader() {
        assertThatThrownBy(() -> Class.forName("io.tarn.client.minicluster.MiniCluster"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void aBadKeyFailsWithTarnsMessage() {
        assertThatThrownBy(() -> TarnServers.start(1, Map.of("tarn.no.such.key", "1")))
                .hasMessageContaining("tarn.no.such.key");
    }
}
