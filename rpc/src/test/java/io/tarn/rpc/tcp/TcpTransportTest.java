package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.RpcTimeoutException;
import io.tarn.common.error.TarnException;
import io.tarn.common.error.TarnFileNotFoundException;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Wire;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The TCP transport over real loopback sockets. */
class TcpTransportTest {
    static final int ECHO = 1000;
    static final int NOT_FOUND = 1001;
    static final int SILENT = 1002;
    static final int THROWS = 1003;
    static final int STRICT = 1004;
    static final int PAYLOAD = 1005;
    static final int LATER = 1006;

    /** Requests the SILENT opcode left unanswered; answered at teardown so their frames are released. */
    static final java.util.Queue<RpcRequest> PARKED = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Echoes longs, fails, stays silent, throws, rejects malformed bodies, or returns a payload. */
    static final RpcHandler HANDLER = (RpcRequest r) -> {
        switch (r.opcode()) {
            case ECHO: {
                long v = Wire.readLong(r.body());
                ByteBuf out = r.response();
                out.writeLong(v * 2);
                r.send(out);
                break;
            }
            case NOT_FOUND:
                r.fail(ErrorCode.FILE_NOT_FOUND, "no such thing: /x");
                break;
            case SILENT:
                PARKED.add(r);
                break;
            case LATER:
                // Answers 7 from another thread after 200 ms.
                io.netty.util.concurrent.GlobalEventExecutor.INSTANCE.schedule(() -> {
                    ByteBuf out = r.response();
                    out.writeLong(7);
                    r.send(out);
                }, 200, TimeUnit.MILLISECONDS);
                break;
            case THROWS:
                throw new IllegalStateException("boom");
            case STRICT:
                Wire.readLong(r.body());
                Wire.end(r.body());
                r.send(r.response());
                break;
            case PAYLOAD: {
                int n = Wire.readInt(r.body());
                int sum = 0;
                while (r.body().isReadable()) {
                    sum += r.body().readByte();
                }
                byte[] data = new byte[n];
                for (int i = 0; i < n; i++) {
                    data[i] = (byte) i;
                }
                ByteBuf head = r.response();
                head.writeInt(sum);
                r.sendWithPayload(head, Unpooled.wrappedBuffer(data));
                break;
            }
            default:
                r.fail(ErrorCode.UNKNOWN_OPCODE, "opcode " + r.opcode());
        }
    };

    Transport transport;
    RpcServer server;

    @BeforeEach
    void start() throws Exception {
        TarnConfig config = TarnConfig.builder().set(TarnKeys.TRANSPORT, io.tarn.common.config.TransportKind.TCP)
                .set(TarnKeys.RPC_TIMEOUT, 300L).set(TarnKeys.RPC_IO_THREADS, 2).build();
        transport = Transports.create(config);
        server = transport.bind(new InetSocketAddress("127.0.0.1", 0), HANDLER);
    }

    @AfterEach
    void stop() {
        RpcRequest r;
        while ((r = PARKED.poll()) != null) {
            r.fail(ErrorCode.INTERNAL, "test over");
        }
        transport.close();
    }

    private RpcClient clientWith(long maxInflight) {
        TarnConfig config = TarnConfig.builder().set(TarnKeys.TRANSPORT, io.tarn.common.config.TransportKind.TCP)
                .set(TarnKeys.RPC_TIMEOUT, 300L).set(TarnKeys.RPC_IO_THREADS, 2)
                .set(TarnKeys.RPC_MAX_INFLIGHT, (int) maxInflight).build();
        Transport t = Transports.create(config);
        extra.add(t);
        return t.connect(server.localAddress());
    }

    final List<Transport> extra = new ArrayList<>();

    @AfterEach
    void stopExtra() {
        extra.forEach(Transport::close);
    }

    private CompletableFuture<Long> echo(RpcClient c, long v) {
        return c.call(ECHO, b -> b.writeLong(v), ByteBuf::readLong);
    }

    /**
     * Many connections that each send a malformed frame (here: a response frame to a server) are
     * each closed, but the server logs at most {@link LogLimiter#PER_WINDOW} lines for them, and a
     * well-behaved client is served meanwhile.
     */
    @Test
    void malformedConnectionsAreClosedWithoutFloodingTheLog() throws Exception {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
                new ch.qos.logback.core.read.ListAppender<>();
        logged.start();
        ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(ServerHandler.class);
        log.addAppender(logged);
        try {
            RpcClient good = transport.connect(server.localAddress());
            long started = System.nanoTime();
            int bad = 40;
            for (int i = 0; i < bad; i++) {
                try (java.net.Socket s = new java.net.Socket(server.localAddress().getAddress(),
                        server.localAddress().getPort())) {
                    RawFrames.answer(s.getOutputStream(), ECHO, i, "not a request");
                    s.setSoTimeout(5_000);
                    assertThat(s.getInputStream().read()).as("connection %d closed by the server", i).isEqualTo(-1);
                }
                assertThat(echo(good, i).join()).isEqualTo(2L * i);
            }
            List<String> lines = logged.list.stream().map(e -> e.getFormattedMessage())
                    .filter(m -> m.contains("malformed frame")).toList();
            long windows = 1 + (System.nanoTime() - started) / LogLimiter.WINDOW_NANOS; // 1 unless very slow
            assertThat(lines).hasSizeBetween(LogLimiter.PER_WINDOW, (int) windows * LogLimiter.PER_WINDOW)
                    .allMatch(m -> m.contains("a response frame was sent to a server"));
        } finally {
            log.detachAppender(logged);
        }
    }

    @Test
    void theLogLimiterCountsWhatItLeftOutAndOpensAgainAfterItsWindow() throws Exception {
        LogLimiter limiter = new LogLimiter(2, TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(limiter.tryLog()).isZero();
        assertThat(limiter.tryLog()).isZero();
        assertThat(limiter.tryLog()).as("over the window's lines").isEqualTo(-1);
        assertThat(limiter.tryLog()).isEqualTo(-1);
        Thread.sleep(250);
        assertThat(limiter.tryLog()).as("the next line says how many were left out").isEqualTo(2);
        assertThat(limiter.tryLog()).isZero();
    }

    @Test
    void pipelinesManyCallsAndMatchesResponsesById() {
        RpcClient c = transport.connect(server.localAddress());
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (long i = 0; i < 20_000; i++) {
            futures.add(echo(c, i));
        }
        for (int i = 0; i < futures.size(); i++) {
            assertThat(futures.get(i).join()).isEqualTo(2L * i);
        }
    }

    @Test
    void chainsOfCallsIssuedOnTheIoThreadAreAllAnswered() throws Exception {
        RpcClient c = transport.connect(server.localAddress());
        assertThat(echo(c, 1).join()).isEqualTo(2L);
        // Many more chains than FlushPacer.MIN_WRITES: read batches flush part-way, then at their end.
        int chains = 300;
        int perChain = 40;
        java.util.concurrent.atomic.AtomicLong sum = new java.util.concurrent.atomic.AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(chains);
        for (int k = 0; k < chains; k++) {
            chain(c, k, perChain, sum, failure, done);
        }
        assertThat(done.await(20, TimeUnit.SECONDS)).as("every chain finished").isTrue();
        assertThat(failure.get()).isNull();
        long expected = 0;
        for (int k = 0; k < chains; k++) {
            for (int i = 0; i < perChain; i++) {
                expected += 2L * (k * 1000L + i);
            }
        }
        assertThat(sum.get()).isEqualTo(expected);

        TcpClient tc = (TcpClient) c;
        assertThat(tc.eventLoop().submit(tc::trackedForTimeout).get(5, TimeUnit.SECONDS))
                .as("answered calls leave the timeout queue at once, not at the next check").isZero();
    }

    /** Issues echo(k * 1000 + i) for i = 0 .. n-1, each from the previous answer's callback. */
    private void chain(RpcClient c, int k, int n, java.util.concurrent.atomic.AtomicLong sum,
                       java.util.concurrent.atomic.AtomicReference<Throwable> failure,
                       java.util.concurrent.CountDownLatch done) {
        step(c, k, 0, n, sum, failure, done);
    }

    private void step(RpcClient c, int k, int i, int n, java.util.concurrent.atomic.AtomicLong sum,
                      java.util.concurrent.atomic.AtomicReference<Throwable> failure,
                      java.util.concurrent.CountDownLatch done) {
        long v = k * 1000L + i;
        echo(c, v).whenComplete((r, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
                done.countDown();
            } else if (r != 2 * v) {
                failure.compareAndSet(null, new AssertionError("echo(" + v + ") answered " + r));
                done.countDown();
            } else {
                sum.addAndGet(r);
                if (i + 1 < n) {
                    step(c, k, i + 1, n, sum, failure, done);
                } else {
                    done.countDown();
                }
            }
        });
    }

    @Test
    void aCallIssuedOnTheEventLoopOutsideAReadBatchIsSent() throws Exception {
        RpcClient c = transport.connect(server.localAddress());
        assertThat(echo(c, 1).join()).isEqualTo(2L);
        TcpClient tc = (TcpClient) c;
        // From a task of the connection's own loop (no answer being read): the call must still leave.
        CompletableFuture<Long> fromTask = tc.eventLoop().submit(() -> echo(c, 21)).get(5, TimeUnit.SECONDS);
        assertThat(fromTask.get(5, TimeUnit.SECONDS)).isEqualTo(42L);
        List<CompletableFuture<Long>> many = tc.eventLoop().submit(() -> {
            List<CompletableFuture<Long>> fs = new ArrayList<>();
            for (int i = 0; i < 2 * FlushPacer.MIN_WRITES + 3; i++) {
                fs.add(echo(c, i));
            }
            return fs;
        }).get(5, TimeUnit.SECONDS);
        for (int i = 0; i < many.size(); i++) {
            assertThat(many.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(2L * i);
        }
    }

    @Test
    void callsFromManyThreadsAllComplete() throws Exception {
        RpcClient c = transport.connect(server.localAddress());
        List<Thread> threads = new ArrayList<>();
        long[] sums = new long[4];
        for (int t = 0; t < 4; t++) {
            int ti = t;
            threads.add(new Thread(() -> {
                for (int i = 0; i < 2000; i++) {
                    sums[ti] += echo(c, i).join();
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        long expected = 2L * (1999L * 2000 / 2);
        assertThat(sums).containsOnly(expected);
    }

    @Test
    void errorResponsesBecomeTypedExceptions() {
        RpcClient c = transport.connect(server.localAddress());
        assertThatThrownBy(() -> c.call(NOT_FOUND, b -> { }, b -> null).join())
                .isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(TarnFileNotFoundException.class).hasMessageContaining("no such thing: /x");
        assertThat(echo(c, 21).join()).isEqualTo(42L);
    }

    @Test
    void unansweredCallTimesOutWithClearError() {
        RpcClient c = transport.connect(server.localAddress());
        assertThatThrownBy(() -> c.call(SILENT, b -> { }, b -> null).join())
                .cause().isInstanceOf(RpcTimeoutException.class).hasMessageContaining("within 300 ms");
        assertThat(echo(c, 1).join()).isEqualTo(2L);
    }

    @Test
    void handlerExceptionIsAnsweredAsInternalAndConnectionSurvives() {
        RpcClient c = transport.connect(server.localAddress());
        assertThatThrownBy(() -> c.call(THROWS, b -> { }, b -> null).join())
                .cause().isInstanceOf(TarnException.class).hasMessageContaining("boom")
                .matches(e -> ((TarnException) e).code() == ErrorCode.INTERNAL);
        assertThat(echo(c, 5).join()).isEqualTo(10L);
    }

    @Test
    void malformedBodyIsAnsweredThenConnectionClosedAndClientReconnects() {
        RpcClient c = transport.connect(server.localAddress());
        assertThatThrownBy(() -> c.call(STRICT, b -> b.writeInt(7), b -> null).join())
                .cause().isInstanceOf(TarnException.class)
                .matches(e -> ((TarnException) e).code() == ErrorCode.MALFORMED_REQUEST);
        assertThat(echo(c, 8).join()).isEqualTo(16L);
    }

    @Test
    void callChainedFromACallbackFindsTheSlotOfTheCallThatCompleted() throws Exception {
        RpcClient c = clientWith(1);
        for (int round = 0; round < 20; round++) {
            CompletableFuture<Void> gate = new CompletableFuture<>();
            // The second call is made by a callback on the I/O thread, while the first still "holds" the only slot.
            CompletableFuture<Long> chained = gate.thenCompose(v -> echo(c, 1)).thenCompose(v -> echo(c, v));
            gate.complete(null);
            assertThat(chained.get(5, TimeUnit.SECONDS)).isEqualTo(4L);
        }
    }

    @Test
    void closeFromACallbackOnTheIoThreadWorks() throws Exception {
        RpcClient c = transport.connect(server.localAddress());
        AtomicReference<Throwable> closeError = new AtomicReference<>();
        long v = c.call(ECHO, b -> b.writeLong(3), b -> {
            try {
                c.close(); // decoders always run on the connection's event loop
            } catch (Throwable t) {
                closeError.set(t);
            }
            return b.readLong();
        }).get(5, TimeUnit.SECONDS);
        assertThat(v).isEqualTo(6L);
        assertThat(closeError.get()).isNull();
        assertThatThrownBy(() -> echo(c, 1).get(5, TimeUnit.SECONDS)).cause().isInstanceOf(TarnException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void cancelledUnansweredCallGivesItsSlotBackAtTheDeadline() throws Exception {
        RpcClient c = clientWith(1);
        c.call(SILENT, b -> { }, b -> null).cancel(false);
        Thread.sleep(600); // two timeouts: the cancelled call's deadline passes
        assertThat(echo(c, 5).get(5, TimeUnit.SECONDS)).isEqualTo(10L);
    }

    @Test
    void answerToACancelledCallIsReleased() throws Exception {
        RpcClient c = transport.connect(server.localAddress());
        AtomicReference<ByteBuf> decoded = new AtomicReference<>();
        CompletableFuture<ByteBuf> f = c.call(LATER, b -> { }, b -> {
            ByteBuf kept = b.retainedSlice();
            decoded.set(kept);
            return kept;
        });
        f.cancel(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((decoded.get() == null || decoded.get().refCnt() != 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(decoded.get()).isNotNull();
        assertThat(decoded.get().refCnt()).isZero();
    }

    @Test
    void decoderThrowingAnErrorFailsTheCallAndFreesItsSlot() throws Exception {
        RpcClient c = clientWith(1);
        assertThatThrownBy(() -> c.call(ECHO, b -> b.writeLong(1), b -> {
            throw new Error("decoder bug");
        }).get(5, TimeUnit.SECONDS)).cause().isInstanceOf(TarnException.class).hasMessageContaining("decoder bug");
        assertThat(echo(c, 2).get(5, TimeUnit.SECONDS)).isEqualTo(4L);
    }

    @Test
    void payloadTravelsBothWays() {
        RpcClient c = transport.connect(server.localAddress());
        byte[] up = new byte[100_000];
        java.util.Arrays.fill(up, (byte) 1);
        int[] sum = new int[1];
        byte[] down = c.call(PAYLOAD, b -> b.writeInt(300_000), Unpooled.wrappedBuffer(up), b -> {
            sum[0] = b.readInt();
            byte[] d = new byte[b.readableBytes()];
            b.readBytes(d);
            return d;
        }).join();
        assertThat(sum[0]).isEqualTo(100_000);
        assertThat(down).hasSize(300_000);
        assertThat(down[299_999]).isEqualTo((byte) 299_999);
    }

    @Test
    void connectionRefusedFailsQuicklyWithAddress() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        RpcClient c = transport.connect(new InetSocketAddress("127.0.0.1", port));
        assertThatThrownBy(() -> echo(c, 1).get(5, TimeUnit.SECONDS))
                .cause().isInstanceOf(TarnException.class).hasMessageContaining("127.0.0.1:" + port)
                .matches(e -> ((TarnException) e).code() == ErrorCode.CONNECTION_LOST);
    }

    @Test
    void clientReconnectsAfterServerRestart() throws Exception {
        InetSocketAddress addr = server.localAddress();
        RpcClient c = transport.connect(addr);
        assertThat(echo(c, 2).join()).isEqualTo(4L);
        server.close();
        assertThatThrownBy(() -> echo(c, 3).get(5, TimeUnit.SECONDS)).cause().isInstanceOf(TarnException.class);
        server = transport.bind(addr, HANDLER);
        assertThat(echo(c, 4).get(5, TimeUnit.SECONDS)).isEqualTo(8L);
    }

    @Test
    void serverSurvivesGarbageAndOtherClientsKeepWorking() throws Exception {
        RpcClient good = transport.connect(server.localAddress());
        assertThat(echo(good, 1).join()).isEqualTo(2L);
        Random random = new Random(42);
        for (int round = 0; round < 20; round++) {
            byte[] junk = new byte[1 + random.nextInt(200)];
            random.nextBytes(junk);
            assertClosedByServer(junk);
        }
        // An absurd length, a negative length, a truncated header, a wrong version, a response flag.
        assertClosedByServer(ints(Integer.MAX_VALUE, 0));
        assertClosedByServer(ints(-5, 0));
        assertClosedByServer(ints(3, 0));
        assertClosedByServer(frame(99, 0, ECHO));
        assertClosedByServer(frame(Frame.VERSION, Frame.FLAG_RESPONSE, ECHO));
        assertThat(echo(good, 21).join()).isEqualTo(42L);
        RpcClient fresh = transport.connect(server.localAddress());
        assertThat(echo(fresh, 50).join()).isEqualTo(100L);
    }

    @Test
    void truncatedFrameIsHeldUntilThePeerGivesUp() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.localAddress().getPort())) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(1000);
            out.write(new byte[10]);
            out.flush();
        }
        RpcClient c = transport.connect(server.localAddress());
        assertThat(echo(c, 3).join()).isEqualTo(6L);
    }

    private static byte[] ints(int a, int b) {
        return java.nio.ByteBuffer.allocate(8).putInt(a).putInt(b).array();
    }

    private static byte[] frame(int version, int flags, int opcode) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(Frame.HEADER_LENGTH + 8);
        b.putInt(Frame.HEADER_LENGTH - 4 + 8).put((byte) version).put((byte) flags).putShort((short) opcode)
                .putLong(1).putInt(0).putLong(7);
        return b.array();
    }

    /** Sends bytes on a raw socket; the server must close the connection (possibly after an error frame). */
    private void assertClosedByServer(byte[] bytes) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.localAddress().getPort())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            byte[] sink = new byte[4096];
            boolean sawEnd = false;
            try {
                while (!sawEnd) {
                    sawEnd = in.read(sink) < 0;
                }
            } catch (java.net.SocketException reset) {
                sawEnd = true;
            } catch (java.net.SocketTimeoutException stillOpen) {
                // Random bytes may announce a frame longer than what was sent: the server waits for the rest.
                int announced = java.nio.ByteBuffer.wrap(java.util.Arrays.copyOf(bytes, 4)).getInt();
                assertThat(bytes.length < 4 || (announced > bytes.length - 4 && announced <= (16 << 20)))
                        .as("connection kept open only while a plausible frame is incomplete").isTrue();
                return;
            }
            assertThat(sawEnd).isTrue();
        }
    }
}
