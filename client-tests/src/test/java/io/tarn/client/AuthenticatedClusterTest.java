package io.tarn.client;

import io.netty.buffer.ByteBuf;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.AccessDeniedException;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.KeyFile;
import io.tarn.minicluster.MiniCluster;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cluster whose every connection authenticates ({@code tarn.security.authentication = secret}):
 * clients with a key of the cluster work as before, a process without one gets nothing, and a
 * process with a client key cannot pose as a datanode (which, without authentication, received the
 * block-token key and could overwrite any block).
 */
class AuthenticatedClusterTest {
    @TempDir
    Path dir;

    @Test
    void clientsWithAKeyWorkAndNoOneElseGetsInOrRegistersADatanode() throws Exception {
        KeyFile secret = KeyFile.newClusterSecret();
        Path clusterSecret = dir.resolve("cluster.secret");
        secret.write(clusterSecret);
        Path clientKey = dir.resolve("client.key");
        secret.clientKey().write(clientKey);
        ListAppender<ILoggingEvent> audit = new ListAppender<>();
        audit.start();
        Logger auditLogger = (Logger) LoggerFactory.getLogger("tarn.audit");
        auditLogger.addAppender(audit);
        try (MiniCluster cluster = MiniCluster.builder().datanodes(2)
                .set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, clusterSecret.toString()).start()) {
            TarnConfig asAlice = cluster.config().toBuilder().set(TarnKeys.SECURITY_SECRET_FILE, clientKey.toString())
                    .set(TarnKeys.CLIENT_USER, "alice").build();
            try (TarnClient admin = TarnClient.connect(cluster.config())) { // the namenode's user: a superuser
                admin.mkdirs("/a");
                admin.setOwner("/a", "alice", null);
            }
            byte[] data = new byte[3 << 20];
            new Random(7).nextBytes(data);
            try (TarnClient alice = TarnClient.connect(asAlice)) {
                write(alice, "/a/data", data);
                assertThat(read(alice, "/a/data")).isEqualTo(data);
                assertThat(alice.clusterStatus().datanodes()).hasSize(2);
            }
            // Over TCP too, not only short-circuit: every datanode connection authenticates.
            try (TarnClient tcp = TarnClient.connect(asAlice.toBuilder().set(TarnKeys.CLIENT_SHORTCIRCUIT,
                    io.tarn.common.config.ShortCircuitMode.OFF).build())) {
                assertThat(read(tcp, "/a/data")).isEqualTo(data);
            }

            TarnConfig noKey = cluster.config().toBuilder()
                    .set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.NONE).build();
            try (TarnClient outsider = TarnClient.connect(noKey)) {
                assertThatThrownBy(() -> outsider.getStatus("/a/data")).isInstanceOf(AuthenticationException.class)
                        .hasMessageContaining("before authenticating");
            }

            // A process with the client key claims to be a datanode: refused before its body is read.
            try (Transport transport = Transports.create(asAlice)) {
                RpcClient namenode = transport.connect(cluster.namenodeAddress());
                for (int op : new int[] {Opcode.REGISTER_DATANODE, Opcode.HEARTBEAT}) {
                    assertThatThrownBy(() -> namenode.call(op, body -> body.writeLong(0), ByteBuf::readableBytes)
                            .join()).cause().isInstanceOf(AccessDeniedException.class)
                            .hasMessageContaining("for Tarn's daemons only");
                }
                InetSocketAddress dn = cluster.datanode(0).address();
                RpcClient datanode = transport.connect(new InetSocketAddress("127.0.0.1", dn.getPort()));
                assertThatThrownBy(() -> datanode.call(Opcode.REPLICA_MESSAGE, body -> body.writeLong(0),
                        ByteBuf::readableBytes).join()).cause().isInstanceOf(AccessDeniedException.class);
            }
            try (TarnClient alice = TarnClient.connect(asAlice)) {
                assertThat(alice.clusterStatus().datanodes()).hasSize(2);
                assertThat(read(alice, "/a/data")).isEqualTo(data);
                alice.rename("/a/data", "/a/moved");
                assertThat(alice.delete("/a/none", false)).isFalse();
            }

            // One audit line per mutation and per refusal, with who, from where and the outcome.
            List<String> lines = audit.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
            assertThat(lines).contains("user=alice ip=127.0.0.1 cmd=CREATE path=/a/data result=OK",
                    "user=alice ip=127.0.0.1 cmd=RENAME path=/a/data dst=/a/moved result=OK",
                    "user=alice ip=127.0.0.1 cmd=DELETE path=/a/none result=FILE_NOT_FOUND",
                    "user=alice ip=127.0.0.1 cmd=REGISTER_DATANODE result=ACCESS_DENIED",
                    "user=alice ip=127.0.0.1 cmd=HEARTBEAT result=ACCESS_DENIED",
                    "user=alice ip=127.0.0.1 cmd=REPLICA_MESSAGE result=ACCESS_DENIED");
            assertThat(lines).anyMatch(l -> l.matches("user=- ip=127\\.0\\.0\\.1 cmd=GET_PARTITIONS "
                    + "result=UNAUTHENTICATED"));
            assertThat(lines).noneMatch(l -> l.contains("cmd=GET_FILE") || l.contains("cmd=LIST"));
        } finally {
            auditLogger.detachAppender(audit);
        }
    }
}
