package io.tarn.client;

import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.security.KeyFile;
import io.tarn.common.security.LocalCertificates;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cluster whose every connection is TLS with mutual certificates and, inside it, authenticated:
 * clients, namenode, datanodes and the datanodes' replication of block groups all speak TLS, files
 * of replication 1 and 3 go in and come out over TCP and short-circuit, and a client without a
 * certificate of the cluster's authority gets nothing.
 */
class TlsClusterTest {
    @TempDir
    Path dir;

    @Test
    void everyConnectionOfTheClusterIsTls() throws Exception {
        LocalCertificates.Made node = LocalCertificates.make(dir.resolve("pki"), "node", 2);
        LocalCertificates.Made stranger = LocalCertificates.make(dir.resolve("other-pki"), "node", 2);
        KeyFile secret = KeyFile.newClusterSecret();
        Path secretFile = dir.resolve("cluster.secret");
        secret.write(secretFile);
        try (MiniCluster cluster = MiniCluster.builder().datanodes(3)
                .set(TarnKeys.SECURITY_TLS, true)
                .set(TarnKeys.SECURITY_TLS_CA, node.ca().toString())
                .set(TarnKeys.SECURITY_TLS_CERT, node.cert().toString())
                .set(TarnKeys.SECURITY_TLS_KEY, node.key().toString())
                .set(TarnKeys.SECURITY_TLS_CLIENT_AUTH, true)
                .set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, secretFile.toString()).start()) {
            byte[] data = TestFiles.random(5 << 20, 21);
            for (ShortCircuitMode sc : ShortCircuitMode.values()) {
                TarnConfig config = cluster.config().toBuilder().set(TarnKeys.CLIENT_SHORTCIRCUIT, sc).build();
                try (TarnClient client = TarnClient.connect(config)) {
                    write(client, "/one-" + sc, data);
                    try (TarnOutputStream out = client.create("/three-" + sc,
                            CreateOptions.DEFAULT.withReplication(3))) {
                        out.write(data);
                    }
                    assertThat(client.getStatus("/three-" + sc).replication()).isEqualTo(3);
                    assertThat(read(client, "/one-" + sc)).isEqualTo(data);
                    assertThat(read(client, "/three-" + sc)).isEqualTo(data);
                    assertThat(client.clusterStatus().datanodes()).hasSize(3);
                }
            }
            TarnConfig foreign = cluster.config().toBuilder().set(TarnKeys.SECURITY_TLS_CERT,
                    stranger.cert().toString()).set(TarnKeys.SECURITY_TLS_KEY, stranger.key().toString()).build();
            try (TarnClient outsider = TarnClient.connect(foreign)) {
                assertThatThrownBy(() -> outsider.getStatus("/one-OFF")).isInstanceOf(AuthenticationException.class)
                        .hasMessageContaining("TLS handshake");
            }
        }
    }
}
