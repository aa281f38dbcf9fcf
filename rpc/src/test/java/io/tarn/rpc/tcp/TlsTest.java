package io.tarn.rpc.tcp;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.ConfigException;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.KeyFile;
import io.tarn.common.security.LocalCertificates;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.RpcServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * TLS on connections ({@code tarn.security.tls}), over real loopback sockets with certificates of a
 * throwaway authority: calls work, the bytes on the wire are encrypted (seen through a relay that
 * records them), and a peer without TLS, with another authority's certificate, or without a client
 * certificate where one is required gets nothing.
 */
class TlsTest {
    @TempDir
    static Path certs;
    private static LocalCertificates.Made ours;
    private static LocalCertificates.Made theirs;

    /** Echoes the request's body. */
    private final RpcHandler echo = (RpcRequest r) -> {
        ByteBuf out = r.response();
        out.writeBytes(r.body());
        r.send(out);
    };

    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void makeCertificates() throws IOException {
        ours = LocalCertificates.make(certs.resolve("ours"), "node", 2);
        theirs = LocalCertificates.make(certs.resolve("theirs"), "node", 2);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    private TcpTransport transport(LocalCertificates.Made trust, LocalCertificates.Made self, boolean mutual,
                                   boolean tls) {
        TarnConfig.Builder b = TarnConfig.builder().set(TarnKeys.RPC_TIMEOUT, 5_000L)
                .set(TarnKeys.RPC_CONNECT_TIMEOUT, 2_000L);
        if (tls) {
            b.set(TarnKeys.SECURITY_TLS, true).set(TarnKeys.SECURITY_TLS_CA, trust.ca().toString())
                    .set(TarnKeys.SECURITY_TLS_CLIENT_AUTH, mutual);
            if (self != null) {
                b.set(TarnKeys.SECURITY_TLS_CERT, self.cert().toString()).set(TarnKeys.SECURITY_TLS_KEY,
                        self.key().toString());
            }
        }
        TcpTransport t = new TcpTransport(b.build());
        closing.add(t);
        return t;
    }

    private RpcServer server(boolean mutual, boolean tls) throws IOException {
        return transport(ours, ours, mutual, tls).bind(new InetSocketAddress("127.0.0.1", 0), echo);
    }

    private static byte[] echo(RpcClient c, byte[] body) {
        return c.call(Opcode.GET_FILE, b -> b.writeBytes(body), ByteBufUtil::getBytes).join();
    }

    @Test
    void callsWorkAndTheWireCarriesNoPlainByte() throws Exception {
        byte[] marker = "tarn-plaintext-marker-0123456789".getBytes(StandardCharsets.US_ASCII);
        byte[] big = new byte[3 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = marker[i % marker.length];
        }
        for (boolean tls : new boolean[] {false, true}) {
            RpcServer server = server(false, tls);
            try (Relay relay = new Relay(server.localAddress())) {
                RpcClient c = transport(ours, null, false, tls).connect(relay.address());
                assertThat(echo(c, marker)).isEqualTo(marker);
                assertThat(echo(c, big)).as("a body of 3 MiB").isEqualTo(big);
                byte[] wire = relay.recorded();
                assertThat(wire.length).isGreaterThan(2 * big.length);
                assertThat(indexOf(wire, marker) >= 0).as("plain bytes on the wire with TLS " + tls).isEqualTo(!tls);
            }
            server.close();
        }
    }

    @Test
    void aPeerWithoutTlsOrWithAnotherAuthoritysCertificateGetsNothing() throws Exception {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        Logger log = (Logger) LoggerFactory.getLogger(TransportTls.class);
        log.addAppender(logged);
        try {
            RpcServer server = server(false, true);
            RpcClient plain = transport(ours, null, false, false).connect(server.localAddress());
            assertThatThrownBy(() -> echo(plain, new byte[] {1})).isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(TarnError.class);
            RpcClient stranger = transport(theirs, null, false, true).connect(server.localAddress());
            assertThatThrownBy(() -> echo(stranger, new byte[] {1})).cause()
                    .isInstanceOf(AuthenticationException.class).hasMessageContaining("TLS handshake with 127.0.0.1:")
                    .hasMessageContaining("failed");
            // A TLS client of a server without TLS.
            RpcServer plainServer = server(false, false);
            RpcClient tlsClient = transport(ours, null, false, true).connect(plainServer.localAddress());
            assertThatThrownBy(() -> echo(tlsClient, new byte[] {1})).cause()
                    .isInstanceOf(AuthenticationException.class).hasMessageContaining("TLS handshake");
            RpcClient good = transport(ours, null, false, true).connect(server.localAddress());
            assertThat(echo(good, new byte[] {7})).containsExactly(7);
        } finally {
            log.detachAppender(logged);
        }
        assertThat(logged.list).extracting(ILoggingEvent::getFormattedMessage)
                .anyMatch(m -> m.startsWith("TLS handshake with /127.0.0.1:") && m.contains("failed"));
    }

    @Test
    void mutualTlsRefusesAClientWithoutACertificateFromTheAuthority() throws Exception {
        RpcServer server = server(true, true);
        RpcClient anonymous = transport(ours, null, true, true).connect(server.localAddress());
        assertThatThrownBy(() -> echo(anonymous, new byte[] {1})).cause()
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("TLS handshake with 127.0.0.1:")
                .satisfies(e -> assertThat(((TarnError) e).code()).isEqualTo(ErrorCode.UNAUTHENTICATED));
        RpcClient foreign = transport(ours, theirs, true, true).connect(server.localAddress());
        assertThatThrownBy(() -> echo(foreign, new byte[] {1})).cause()
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("TLS handshake");
        LocalCertificates.Made client = LocalCertificates.issue(certs.resolve("ours"), "client", 2);
        RpcClient member = transport(ours, client, true, true).connect(server.localAddress());
        assertThat(echo(member, new byte[] {9, 8})).containsExactly(9, 8);
    }

    @Test
    void authenticationRunsInsideTls() throws Exception {
        KeyFile secret = KeyFile.newClusterSecret();
        Path file = certs.resolve("cluster.secret");
        Files.deleteIfExists(file);
        secret.write(file);
        TarnConfig.Builder b = TarnConfig.builder().set(TarnKeys.SECURITY_TLS, true)
                .set(TarnKeys.SECURITY_TLS_CA, ours.ca().toString()).set(TarnKeys.SECURITY_TLS_CERT,
                        ours.cert().toString()).set(TarnKeys.SECURITY_TLS_KEY, ours.key().toString())
                .set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, file.toString()).set(TarnKeys.CLIENT_USER, "tarn");
        TcpTransport t = new TcpTransport(b.build());
        closing.add(t);
        RpcServer server = t.bind(new InetSocketAddress("127.0.0.1", 0), (RpcRequest r) -> {
            ByteBuf out = r.response();
            Wire.writeString(out, r.identity().user());
            r.send(out);
        });
        RpcClient c = t.connect(server.localAddress());
        assertThat(c.call(Opcode.GET_FILE, x -> { }, Wire::readString).join()).isEqualTo("tarn");
    }

    @Test
    void badTlsSettingsFailAtStartNamingTheKey() throws IOException {
        assertThatThrownBy(() -> new TcpTransport(TarnConfig.builder().set(TarnKeys.SECURITY_TLS, true).build()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("tarn.security.tls.ca");
        assertThatThrownBy(() -> new TcpTransport(TarnConfig.builder().set(TarnKeys.SECURITY_TLS, true)
                .set(TarnKeys.SECURITY_TLS_CA, ours.ca().toString())
                .set(TarnKeys.SECURITY_TLS_CERT, ours.cert().toString()).build()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("set both");
        Path exposed = certs.resolve("exposed.key");
        Files.copy(ours.key(), exposed);
        Files.setPosixFilePermissions(exposed, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> new TcpTransport(TarnConfig.builder().set(TarnKeys.SECURITY_TLS, true)
                .set(TarnKeys.SECURITY_TLS_CA, ours.ca().toString()).set(TarnKeys.SECURITY_TLS_CERT,
                        ours.cert().toString()).set(TarnKeys.SECURITY_TLS_KEY, exposed.toString()).build()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("others can read or change it");
        Path notPem = Files.writeString(certs.resolve("not.pem"), "hello");
        assertThatThrownBy(() -> new TcpTransport(TarnConfig.builder().set(TarnKeys.SECURITY_TLS, true)
                .set(TarnKeys.SECURITY_TLS_CA, notPem.toString()).build()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cannot set up TLS");
        TcpTransport clientOnly = new TcpTransport(TarnConfig.builder().set(TarnKeys.SECURITY_TLS, true)
                .set(TarnKeys.SECURITY_TLS_CA, ours.ca().toString()).build());
        closing.add(clientOnly);
        assertThatThrownBy(() -> clientOnly.bind(new InetSocketAddress("127.0.0.1", 0), echo))
                .isInstanceOf(ConfigException.class).hasMessageContaining("a server needs tarn.security.tls.cert");
    }

    /** The commands docs/security.md gives, run as written: their files serve and connect. */
    @Test
    void certificatesMadeWithOpensslAsTheDocsSayWork() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl is not installed");
        Path d = Files.createDirectories(certs.resolve("openssl"));
        openssl(d, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                "ca.key", "-out", "ca.pem", "-days", "365", "-subj", "/CN=Tarn cluster CA");
        openssl(d, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "node.key",
                "-out", "node.csr", "-subj", "/CN=node1");
        Files.writeString(d.resolve("node.ext"),
                "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
        openssl(d, "x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "node.pem", "-days", "365", "-extfile", "node.ext");
        Files.setPosixFilePermissions(d.resolve("node.key"), PosixFilePermissions.fromString("rw-------"));
        LocalCertificates.Made made = new LocalCertificates.Made(d.resolve("ca.pem"), d.resolve("node.pem"),
                d.resolve("node.key"));
        RpcServer server = transport(made, made, true, true).bind(new InetSocketAddress("127.0.0.1", 0), echo);
        RpcClient c = transport(made, made, true, true).connect(server.localAddress());
        assertThat(echo(c, new byte[] {4, 2})).containsExactly(4, 2);
    }

    private static void openssl(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("openssl %s: %s", args[0], out).isZero();
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** A TCP relay to {@code target} that records every byte it forwards, both ways. */
    private static final class Relay implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        private final ByteArrayOutputStream seen = new ByteArrayOutputStream();
        private final List<Socket> sockets = new ArrayList<>();

        Relay(InetSocketAddress target) throws IOException {
            Thread accept = new Thread(() -> {
                try {
                    while (true) {
                        Socket in = listener.accept();
                        Socket out = new Socket(target.getAddress(), target.getPort());
                        synchronized (sockets) {
                            sockets.add(in);
                            sockets.add(out);
                        }
                        pump(in, out);
                        pump(out, in);
                    }
                } catch (IOException e) {
                    // closed
                }
            }, "relay-accept");
            accept.setDaemon(true);
            accept.start();
        }

        InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", listener.getLocalPort());
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[64 * 1024];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        synchronized (seen) {
                            seen.write(buf, 0, n);
                        }
                        out.write(buf, 0, n);
                    }
                } catch (IOException e) {
                    // one side closed
                }
            }, "relay-pump");
            t.setDaemon(true);
            t.start();
        }

        byte[] recorded() {
            synchronized (seen) {
                return Arrays.copyOf(seen.toByteArray(), seen.size());
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            synchronized (sockets) {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }
}
