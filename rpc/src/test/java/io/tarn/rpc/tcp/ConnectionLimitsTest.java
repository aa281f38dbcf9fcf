package io.tarn.rpc.tcp;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.KeyFile;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.RpcServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a server does against connections that would exhaust it, over real loopback sockets: frames
 * bounded before authentication, a cap on connections, on unanswered calls per connection, and idle
 * connections closed; normal clients are served throughout.
 */
class ConnectionLimitsTest {
    @TempDir
    Path dir;

    private final List<TcpTransport> transports = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        transports.forEach(TcpTransport::close);
    }

    private TcpTransport transport(TarnConfig.Builder b) {
        TcpTransport t = new TcpTransport(b.set(TarnKeys.RPC_TIMEOUT, 10_000L).build());
        transports.add(t);
        return t;
    }

    private static final RpcHandler ECHO = (RpcRequest r) -> {
        ByteBuf out = r.response();
        out.writeInt(r.body().readableBytes());
        r.send(out);
    };

    private static CompletableFuture<Integer> call(RpcClient c, int bodyBytes) {
        return c.call(Opcode.GET_FILE, b -> b.writeZero(bodyBytes), Wire::readInt);
    }

    private Socket connect(RpcServer server) throws IOException {
        Socket s = new Socket("127.0.0.1", server.localAddress().getPort());
        s.setSoTimeout(10_000);
        sockets.add(s);
        return s;
    }

    @Test
    void beforeAuthenticatingAPeerCannotMakeTheServerBufferALargeFrame() throws Exception {
        Path secret = dir.resolve("cluster.secret");
        KeyFile.newClusterSecret().write(secret);
        TarnConfig.Builder auth = TarnConfig.builder().set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, secret.toString());
        RpcServer server = transport(auth).bind(new InetSocketAddress("127.0.0.1", 0), ECHO);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        Logger log = (Logger) LoggerFactory.getLogger(ServerHandler.class);
        log.addAppender(logged);
        try {
            Socket s = connect(server);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(16 << 20); // announces a 16 MiB frame, then sends part of it
            out.write(new byte[64 << 10]);
            out.flush();
            assertThat(drainToEnd(new DataInputStream(s.getInputStream()))).as("closed by the server").isTrue();
            waitFor(() -> logged.list.stream().anyMatch(e -> e.getFormattedMessage()
                    .contains("a frame of 16777220 bytes before the connection authenticated (at most 4096")));
        } finally {
            log.detachAppender(logged);
        }
        // Once authenticated, frames up to tarn.rpc.max.frame.
        RpcClient c = transport(auth).connect(server.localAddress());
        assertThat(call(c, 1 << 20).join()).isEqualTo(1 << 20);
    }

    @Test
    void connectionsBeyondTheCapAreToldTheServerIsBusyAndTheOthersServed() throws Exception {
        RpcServer server = transport(TarnConfig.builder().set(TarnKeys.RPC_SERVER_MAX_CONNECTIONS, 3))
                .bind(new InetSocketAddress("127.0.0.1", 0), ECHO);
        TcpTransport clients = transport(TarnConfig.builder().set(TarnKeys.CLIENT_WAIT_DIRECT, false));
        RpcClient first = clients.connect(server.localAddress());
        assertThat(call(first, 10).join()).isEqualTo(10);
        connect(server);
        connect(server);
        waitFor(() -> server.connectionCount() == 3);

        Socket fourth = connect(server);
        DataInputStream in = new DataInputStream(fourth.getInputStream());
        ByteBuf answer = RawFrames.read(in);
        try {
            assertThat(Frame.status(answer)).isEqualTo(ErrorCode.SERVER_BUSY.code());
            assertThat(Wire.readString(answer.skipBytes(Frame.HEADER_LENGTH)))
                    .contains("has 3 connections open, the most it allows (tarn.rpc.server.max.connections = 3)");
        } finally {
            answer.release();
        }
        assertThat(in.read()).isEqualTo(-1);

        RpcClient another = clients.connect(server.localAddress());
        assertThatThrownBy(() -> call(another, 1).join()).cause().isInstanceOf(TarnError.class)
                .satisfies(e -> assertThat(((TarnError) e).code()).isEqualTo(ErrorCode.SERVER_BUSY));
        assertThat(call(first, 20).join()).as("the connections within the cap are served").isEqualTo(20);

        sockets.remove(0).close();
        waitFor(() -> server.connectionCount() == 2);
        assertThat(call(another, 30).join()).as("a connection freed: admitted").isEqualTo(30);
    }

    @Test
    void atTheCapAConnectionThatDidNotAuthenticateMakesRoomForOneThatDoes() throws Exception {
        Path secret = dir.resolve("cluster.secret");
        KeyFile.newClusterSecret().write(secret);
        TarnConfig.Builder auth = TarnConfig.builder().set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, secret.toString()).set(TarnKeys.CLIENT_WAIT_DIRECT, false);
        RpcServer server = transport(auth.set(TarnKeys.RPC_SERVER_MAX_CONNECTIONS, 5))
                .bind(new InetSocketAddress("127.0.0.1", 0), ECHO);
        List<Socket> idle = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            idle.add(connect(server)); // connected, never authenticating
        }
        waitFor(() -> server.connectionCount() == 5);
        TcpTransport clients = transport(TarnConfig.builder().set(TarnKeys.SECURITY_AUTHENTICATION,
                AuthenticationMode.SECRET).set(TarnKeys.SECURITY_SECRET_FILE, secret.toString())
                .set(TarnKeys.CLIENT_WAIT_DIRECT, false));
        for (int i = 0; i < 3; i++) {
            RpcClient c = clients.connect(server.localAddress());
            assertThat(call(c, i).join()).as("authenticated client %d served at the cap", i).isEqualTo(i);
        }
        // Three of the idle connections (the oldest as the server accepted them) were told why and closed.
        int evicted = 0;
        for (Socket s : idle) {
            s.setSoTimeout(1_000);
            try {
                ByteBuf answer = RawFrames.read(new DataInputStream(s.getInputStream()));
                try {
                    assertThat(Frame.status(answer)).isEqualTo(ErrorCode.UNAUTHENTICATED.code());
                    assertThat(Wire.readString(answer.skipBytes(Frame.HEADER_LENGTH)))
                            .contains("closed before it authenticated").contains("connection cap");
                    evicted++;
                } finally {
                    answer.release();
                }
            } catch (java.net.SocketTimeoutException waitsOn) {
                // one of the two left waiting
            }
        }
        assertThat(evicted).isEqualTo(3);
        assertThat(server.connectionCount()).isEqualTo(5);
    }

    @Test
    void aConnectionGetsNoMoreUnansweredCallsServedThanTheCapAndTheRestInOrderLater() throws Exception {
        Queue<RpcRequest> parked = new ConcurrentLinkedQueue<>();
        AtomicInteger seen = new AtomicInteger();
        RpcHandler parking = r -> {
            seen.incrementAndGet();
            parked.add(r);
        };
        RpcServer server = transport(TarnConfig.builder().set(TarnKeys.RPC_SERVER_MAX_INFLIGHT, 4))
                .bind(new InetSocketAddress("127.0.0.1", 0), parking);
        RpcClient c = transport(TarnConfig.builder()).connect(server.localAddress());
        List<CompletableFuture<Integer>> calls = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            calls.add(call(c, i));
        }
        waitFor(() -> seen.get() == 4);
        Thread.sleep(200);
        assertThat(seen.get()).as("served while 4 are unanswered").isEqualTo(4);
        int answered = 0;
        while (answered < 50) {
            RpcRequest r = parked.poll();
            if (r == null) {
                Thread.sleep(1);
                continue;
            }
            assertThat(parked.size()).as("never more than 4 unanswered").isLessThan(4);
            ByteBuf out = r.response();
            out.writeInt(r.body().readableBytes());
            r.send(out);
            answered++;
        }
        for (int i = 0; i < 50; i++) {
            assertThat(calls.get(i).join()).as("call %d, in order", i).isEqualTo(i);
        }
        assertThat(seen.get()).isEqualTo(50);
    }

    @Test
    void idleConnectionsAreClosedByTheirClientBeforeTheServerAndOpenedAgainWhenNeeded() throws Exception {
        TarnConfig.Builder idle = TarnConfig.builder().set(TarnKeys.RPC_IDLE_TIMEOUT, 1_000L)
                .set(TarnKeys.CLIENT_WAIT_DIRECT, false);
        RpcServer server = transport(idle).bind(new InetSocketAddress("127.0.0.1", 0), ECHO);
        RpcClient c = transport(idle).connect(server.localAddress());
        assertThat(call(c, 5).join()).isEqualTo(5);
        assertThat(server.connectionCount()).isEqualTo(1);
        long start = System.nanoTime();
        waitFor(() -> server.connectionCount() == 0);
        assertThat((System.nanoTime() - start) / 1_000_000).as("closed by the client after half the timeout")
                .isBetween(300L, 1_500L);
        assertThat(call(c, 6).join()).as("a new connection").isEqualTo(6);

        // A peer that goes quiet without closing: the server closes it.
        Socket quiet = connect(server);
        long opened = System.nanoTime();
        assertThat(new DataInputStream(quiet.getInputStream()).read()).isEqualTo(-1);
        assertThat((System.nanoTime() - opened) / 1_000_000).isBetween(900L, 5_000L);
    }

    @Test
    void authenticatedPeersHoldingPartialFramesHoldNoMoreThanTheBoundAndANormalClientIsServed() throws Exception {
        Path secret = dir.resolve("cluster.secret");
        KeyFile key = KeyFile.newClusterSecret();
        key.write(secret);
        long bound = 68L << 20; // room for four frames of 16 MiB
        int body = 16 << 20;
        long frame = body + Frame.LENGTH_FIELD;
        TarnConfig.Builder auth = TarnConfig.builder().set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, secret.toString()).set(TarnKeys.CLIENT_WAIT_DIRECT, false)
                .set(TarnKeys.RPC_IDLE_TIMEOUT, 3_000L);
        TcpServer server = (TcpServer) transport(auth.set(TarnKeys.RPC_SERVER_MAX_PARTIAL_BYTES, bound))
                .bind(new InetSocketAddress("127.0.0.1", 0), ECHO);
        PartialFrameBudget budget = server.partialFrames();
        RpcClient normal = transport(auth).connect(server.localAddress());
        assertThat(call(normal, 100).join()).isEqualTo(100);
        long directBefore = usedDirectMemory();

        // 40 authenticated peers: 4 start frames of 16 MiB and send all of each but its last byte, a second
        // after the others sent their last whole frame; then the other 36 start theirs.
        int peers = 40;
        int holding = 4;
        List<Socket> attackers = new ArrayList<>();
        for (int i = 0; i < peers; i++) {
            Socket s = connect(server);
            RawFrames.authenticate(s, key, "mallory");
            attackers.add(s);
        }
        Thread.sleep(1_000);
        byte[] allButOne = new byte[body - 1];
        ExecutorService writers = Executors.newFixedThreadPool(peers);
        try {
            for (int i = 0; i < peers; i++) {
                Socket s = attackers.get(i);
                if (i < holding) {
                    RawFrames.request(s.getOutputStream(), Opcode.GET_FILE, 1, 8);
                    RawFrames.read(new DataInputStream(s.getInputStream())).release(); // a whole frame, answered
                }
                writers.execute(() -> {
                    try {
                        DataOutputStream out = new DataOutputStream(s.getOutputStream());
                        out.writeInt(body);
                        out.write(allButOne); // blocks for those the server does not read
                        out.flush();
                    } catch (IOException closedByTheServer) {
                        // expected for the peers told SERVER_BUSY
                    }
                });
                if (i == holding - 1) {
                    waitFor(() -> budget.held() == holding * frame);
                }
            }
            waitFor(() -> budget.waiting() == peers - holding);

            // Small calls go on while the bound is reached; a large one waits in line.
            long peakHeld = 0;
            long peakDirect = 0;
            for (int i = 0; i < 200; i++) {
                assertThat(call(normal, i).get(5, TimeUnit.SECONDS)).as("small call %d during the attack", i)
                        .isEqualTo(i);
                peakHeld = Math.max(peakHeld, budget.held());
                peakDirect = Math.max(peakDirect, usedDirectMemory() - directBefore);
            }
            assertThat(peakHeld).as("bytes reserved for partial frames").isEqualTo(holding * frame)
                    .isLessThanOrEqualTo(bound);
            assertThat(peakDirect).as("direct memory the server took during the attack (40 frames of 16 MiB would be "
                    + "640 MiB)").isLessThan(bound + (32L << 20));
            RpcClient large = transport(auth).connect(server.localAddress());
            assertThat(call(large, 1).join()).isEqualTo(1);
            CompletableFuture<Integer> waits = call(large, 1 << 20);
            waitFor(() -> budget.waiting() == peers - holding + 1);

            // The 36 sent no whole frame for tarn.rpc.idle.timeout, waiting: told SERVER_BUSY and closed.
            for (Socket s : attackers.subList(holding, peers)) {
                ByteBuf answer = RawFrames.read(new DataInputStream(s.getInputStream()));
                try {
                    assertThat(Frame.status(answer)).isEqualTo(ErrorCode.SERVER_BUSY.code());
                    assertThat(Wire.readString(answer.skipBytes(Frame.HEADER_LENGTH)))
                            .contains("had no room for a frame of " + frame + " bytes within tarn.rpc.idle.timeout")
                            .contains("tarn.rpc.server.max.partial.bytes");
                } finally {
                    answer.release();
                }
            }
            assertThat(waits).as("the large call waits while the four hold their room").isNotDone();
            assertThat(budget.held()).isEqualTo(holding * frame);

            // The four go away: their room is given back and the large call gets it.
            for (Socket s : attackers.subList(0, holding)) {
                s.close();
            }
            assertThat(waits.get(10, TimeUnit.SECONDS)).isEqualTo(1 << 20);
            waitFor(() -> server.connectionCount() <= 2); // the attackers' are closed; the clients' may be, idle
            assertThat(budget.held()).as("room given back when the frames arrived or the connections closed")
                    .isZero();
            assertThat(budget.waiting()).isZero();
            assertThat(call(normal, 1 << 20).join()).isEqualTo(1 << 20);
        } finally {
            writers.shutdownNow();
        }
    }

    /** Direct memory Netty's default allocator holds now. */
    private static long usedDirectMemory() {
        return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
    }

    /** Reads until the end of the stream; true when it ended (rather than timing out). */
    private static boolean drainToEnd(DataInputStream in) throws IOException {
        byte[] buf = new byte[8192];
        try {
            while (true) {
                if (in.read(buf) < 0) {
                    return true;
                }
            }
        } catch (java.net.SocketException reset) {
            return true; // closed with data of ours unread: the kernel resets the connection
        }
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(5);
        }
    }
}
