package io.tarn.rpc.tcp;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.AccessDeniedException;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.Identity;
import io.tarn.common.security.KeyFile;
import io.tarn.rpc.PayloadPlacement;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.WaitingCaller;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Authentication of connections ({@code tarn.security.authentication = secret}) over real loopback
 * sockets: who gets in, with which identity, and what everyone else gets.
 */
class AuthenticationTest {
    /** Served requests answer the caller's identity: user, then whether it is a daemon. */
    private final AtomicInteger served = new AtomicInteger();
    private final RpcHandler whoAmI = (RpcRequest r) -> {
        served.incrementAndGet();
        ByteBuf out = r.response();
        Wire.writeString(out, r.identity().user());
        Wire.writeBoolean(out, r.identity().daemon());
        r.send(out);
    };

    @TempDir
    Path dir;

    private final List<TcpTransport> transports = new ArrayList<>();

    @AfterEach
    void close() {
        transports.forEach(TcpTransport::close);
    }

    private Path write(KeyFile key, String name) throws IOException {
        Path file = dir.resolve(name);
        key.write(file);
        return file;
    }

    private TcpTransport transport(Path keyFile, String user) {
        TarnConfig.Builder b = TarnConfig.builder().set(TarnKeys.RPC_TIMEOUT, 5_000L)
                .set(TarnKeys.SECURITY_AUTH_TIMEOUT, 300L);
        if (keyFile != null) {
            b.set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                    .set(TarnKeys.SECURITY_SECRET_FILE, keyFile.toString());
        }
        if (user != null) {
            b.set(TarnKeys.CLIENT_USER, user);
        }
        TcpTransport t = new TcpTransport(b.build());
        transports.add(t);
        return t;
    }

    private static CompletableFuture<Identity> whoAmI(RpcClient c, int opcode) {
        return c.call(opcode, body -> { }, body -> new Identity(Wire.readString(body), Wire.readBoolean(body)));
    }

    private RpcServer secretServer(Path clusterSecret, RpcHandler handler) throws IOException {
        return transport(clusterSecret, null).bind(new InetSocketAddress("127.0.0.1", 0), handler);
    }

    @Test
    void aClusterSecretAuthenticatesADaemonAndAClientKeyAUserWhoMayNotCallDaemonsOperations() throws Exception {
        KeyFile secret = KeyFile.newClusterSecret();
        Path cluster = write(secret, "cluster.secret");
        RpcServer server = secretServer(cluster, whoAmI);

        RpcClient daemon = transport(cluster, "tarn").connect(server.localAddress());
        assertThat(whoAmI(daemon, Opcode.GET_FILE).join()).isEqualTo(new Identity("tarn", true));
        assertThat(whoAmI(daemon, Opcode.REGISTER_DATANODE).join()).isEqualTo(new Identity("tarn", true));

        RpcClient user = transport(write(secret.clientKey(), "client.key"), "alice").connect(server.localAddress());
        assertThat(whoAmI(user, Opcode.GET_FILE).join()).isEqualTo(new Identity("alice", false));
        for (int daemonsOnly : new int[] {Opcode.REGISTER_DATANODE, Opcode.HEARTBEAT, Opcode.DIR_MKDIR,
                Opcode.REPLICA_MESSAGE}) {
            assertThatThrownBy(() -> whoAmI(user, daemonsOnly).join()).cause()
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining(Opcode.name(daemonsOnly) + " is for Tarn's daemons only")
                    .hasMessageContaining("alice");
        }
        // Refusing an operation does not cost the connection.
        assertThat(whoAmI(user, Opcode.LIST).join()).isEqualTo(new Identity("alice", false));
        assertThat(served.get()).isEqualTo(4);
    }

    @Test
    void aUserKeyAuthenticatesItsOwnUserWhateverTheClientClaims() throws Exception {
        KeyFile secret = KeyFile.newClusterSecret();
        RpcServer server = secretServer(write(secret, "cluster.secret"), whoAmI);
        RpcClient c = transport(write(secret.userKey("alice"), "alice.key"), "root").connect(server.localAddress());
        assertThat(whoAmI(c, Opcode.GET_FILE).join()).isEqualTo(new Identity("alice", false));
    }

    @Test
    void keysOfAnotherClusterAreRefusedOnBothSidesAndTheServerLogsWhoTried() throws Exception {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        Logger log = (Logger) LoggerFactory.getLogger(ServerAuth.class);
        log.addAppender(logged);
        try {
            RpcServer server = secretServer(write(KeyFile.newClusterSecret(), "cluster.secret"), whoAmI);
            KeyFile other = KeyFile.newClusterSecret();
            for (KeyFile key : List.of(other, other.clientKey(), other.userKey("mallory"))) {
                RpcClient c = transport(write(key, "other.key"), "mallory").connect(server.localAddress());
                assertThatThrownBy(() -> whoAmI(c, Opcode.GET_FILE).join()).cause()
                        .isInstanceOf(AuthenticationException.class)
                        .hasMessageContaining("could not prove it holds this cluster's secret");
            }
            waitFor(() -> logged.list.size() >= 3);
            assertThat(logged.list).extracting(ILoggingEvent::getFormattedMessage)
                    .allMatch(m -> m.startsWith("refused connection from /127.0.0.1:") && m.contains("user mallory")
                            && m.contains("wrong key"));
            waitFor(() -> server.connectionCount() == 0);
            assertThat(served.get()).isZero();
        } finally {
            log.detachAppender(logged);
        }
    }

    @Test
    void aClientWithoutAKeyIsToldWhatToConfigureAndServedNothing() throws Exception {
        RpcServer server = secretServer(write(KeyFile.newClusterSecret(), "cluster.secret"), whoAmI);
        RpcClient c = transport(null, null).connect(server.localAddress());
        assertThatThrownBy(() -> whoAmI(c, Opcode.CREATE).join()).cause()
                .isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("CREATE before authenticating")
                .hasMessageContaining("tarn.security.secret.file");
        assertThat(served.get()).isZero();
    }

    @Test
    void aClientThatRequiresAuthenticationRefusesAServerThatDoesNotAuthenticate() throws Exception {
        RpcServer server = transport(null, null).bind(new InetSocketAddress("127.0.0.1", 0), whoAmI);
        RpcClient c = transport(write(KeyFile.newClusterSecret(), "cluster.secret"), "tarn")
                .connect(server.localAddress());
        assertThatThrownBy(() -> whoAmI(c, Opcode.GET_FILE).join()).cause()
                .isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("does not authenticate");
        assertThat(served.get()).isZero();
    }

    @Test
    void aFrameBeforeTheHandshakeIsAnsweredUnauthenticatedAndNoPayloadIsPlacedOrBuffered() throws Exception {
        AtomicInteger placements = new AtomicInteger();
        class Placing implements RpcHandler, PayloadPlacement {
            @Override
            public void handle(RpcRequest r) throws Exception {
                whoAmI.handle(r);
            }

            @Override
            public int headLength(int opcode) {
                placements.incrementAndGet();
                return 0;
            }

            @Override
            public Target place(int opcode, ByteBuf head, int payloadLength) {
                placements.incrementAndGet();
                return null;
            }
        }
        RpcServer server = secretServer(write(KeyFile.newClusterSecret(), "cluster.secret"), new Placing());
        try (Socket s = new Socket("127.0.0.1", server.localAddress().getPort())) {
            s.setSoTimeout(5_000);
            send(s, Opcode.WRITE_BLOCK, 77, 1024);
            DataInputStream in = new DataInputStream(s.getInputStream());
            ByteBuf answer = RawFrames.read(in);
            try {
                assertThat(Frame.requestId(answer)).isEqualTo(77);
                assertThat(Frame.status(answer)).isEqualTo(ErrorCode.UNAUTHENTICATED.code());
                assertThat(Wire.readString(answer.skipBytes(Frame.HEADER_LENGTH)))
                        .contains("WRITE_BLOCK before authenticating");
            } finally {
                answer.release();
            }
            assertThat(in.read()).as("closed by the server").isEqualTo(-1);
        }
        // A frame big enough to be placed is refused before any of it is buffered or placed.
        try (Socket s = new Socket("127.0.0.1", server.localAddress().getPort())) {
            s.setSoTimeout(5_000);
            send(s, Opcode.WRITE_BLOCK, 78, 256 * 1024);
            assertThat(closedByPeer(s)).isTrue();
        }
        assertThat(placements.get()).isZero();
        assertThat(served.get()).isZero();
    }

    @Test
    void aConnectionThatDoesNotAuthenticateIsClosedAfterTheTimeout() throws Exception {
        RpcServer server = secretServer(write(KeyFile.newClusterSecret(), "cluster.secret"), whoAmI);
        try (Socket s = new Socket("127.0.0.1", server.localAddress().getPort())) {
            s.setSoTimeout(5_000);
            long start = System.nanoTime();
            DataInputStream in = new DataInputStream(s.getInputStream());
            ByteBuf answer = RawFrames.read(in);
            try {
                assertThat(Frame.status(answer)).isEqualTo(ErrorCode.UNAUTHENTICATED.code());
                assertThat(Wire.readString(answer.skipBytes(Frame.HEADER_LENGTH)))
                        .contains("did not authenticate within 300 ms");
            } finally {
                answer.release();
            }
            assertThat(in.read()).isEqualTo(-1);
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(250);
        }
    }

    @Test
    void theDirectLaneAuthenticatesToo() throws Exception {
        KeyFile secret = KeyFile.newClusterSecret();
        RpcServer server = secretServer(write(secret, "cluster.secret"), whoAmI);
        TcpClient c = (TcpClient) transport(write(secret.userKey("bob"), "bob.key"), null)
                .connect(server.localAddress());
        assertThat(whoAmI(c, Opcode.GET_FILE).join()).isEqualTo(new Identity("bob", false)); // opens the channel
        for (int i = 0; i < 5; i++) {
            Identity who = WaitingCaller.during(50_000, () -> true, () -> whoAmI(c, Opcode.GET_FILE)).join();
            assertThat(who).isEqualTo(new Identity("bob", false));
        }
        assertThat(c.directAnswers()).isEqualTo(5);
    }

    @Test
    void aProcessWithAClientKeyCannotServe() throws Exception {
        Path key = write(KeyFile.newClusterSecret().clientKey(), "client.key");
        assertThatThrownBy(() -> transport(key, "alice").bind(new InetSocketAddress("127.0.0.1", 0), whoAmI))
                .hasMessageContaining("a Tarn server needs the cluster secret");
    }

    /** Writes a request frame of {@code bodyBytes} zero bytes; a peer that closes meanwhile is fine. */
    private static void send(Socket s, int opcode, long id, int bodyBytes) throws IOException {
        ByteBuf frame = Unpooled.buffer();
        try {
            int start = Frame.begin(frame, opcode, id, 0, 0);
            frame.writeZero(bodyBytes);
            Frame.finish(frame, start);
            s.getOutputStream().write(frame.array(), 0, frame.readableBytes());
        } catch (java.net.SocketException closed) {
            // the server closed already
        } finally {
            frame.release();
        }
    }

    /** True once the peer closed the connection (end of stream, or a reset for data it left unread). */
    private static boolean closedByPeer(Socket s) throws IOException {
        try {
            byte[] buf = new byte[4096];
            while (s.getInputStream().read(buf) >= 0) {
                // drain
            }
            return true;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 5 s");
            }
            Thread.sleep(10);
        }
    }
}
