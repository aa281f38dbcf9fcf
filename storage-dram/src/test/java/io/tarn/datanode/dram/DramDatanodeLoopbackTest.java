package io.tarn.datanode.dram;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.DramMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.NamenodeLink;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static io.tarn.datanode.dram.TestStamp.STAMP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/** A DRAM datanode over real loopback sockets, with a fake namenode peer and real clients. */
@Timeout(60)
class DramDatanodeLoopbackTest {
    private static final int BLOCK = 64 << 10;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static Transport transport;

    @TempDir
    Path dramPath;

    private FakeNamenode namenode;
    private final Deque<AutoCloseable> cleanup = new ArrayDeque<>();

    @BeforeAll
    static void startTransport() {
        transport = Transports.create(TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.RPC_IO_THREADS, 2)
                .build());
    }

    @AfterAll
    static void stopTransport() {
        transport.close();
    }

    @BeforeEach
    void startNamenode() throws IOException {
        namenode = new FakeNamenode(transport, BLOCK).start(new InetSocketAddress("127.0.0.1", 0));
        cleanup.push(namenode);
    }

    @AfterEach
    void closeAll() throws Exception {
        while (!cleanup.isEmpty()) {
            cleanup.pop().close();
        }
    }

    private TarnConfig.Builder config(String namenodeAddress) {
        return TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.RPC_IO_THREADS, 1)
                .set(TarnKeys.RPC_TIMEOUT, 5_000L)
                .set(TarnKeys.NAMENODE_ADDRESS, namenodeAddress)
                .set(TarnKeys.DATANODE_BIND, "127.0.0.1:0")
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DRAM_REGION_SIZE, 1L << 20)
                .set(TarnKeys.DRAM_CAPACITY, 2L << 20)
                .set(TarnKeys.DRAM_MODE, DramMode.MMAP)
                .set(TarnKeys.DRAM_PATH, dramPath.toString());
    }

    private DramDatanode start(TarnConfig config) throws IOException {
        DramDatanode dn = DramDatanode.start(config, transport);
        cleanup.push(dn);
        return dn;
    }

    private DramDatanode startRegistered() throws Exception {
        DramDatanode dn = start(config(namenode.address()).build());
        assertThat(dn.awaitRegistered(WAIT)).isTrue();
        return dn;
    }

    private RpcClient client(DramDatanode dn) {
        RpcClient c = transport.connect(dn.address());
        cleanup.push(c);
        return c;
    }

    private long token(DramDatanode dn, int region, int block, int generation, int mode) {
        return namenode.tokens().issue(dn.datanodeId(), region, block, generation, mode, STAMP);
    }

    private static void write(RpcClient c, int region, int block, int generation, long token, int offset,
                              byte[] data) throws Exception {
        c.call(Opcode.WRITE_BLOCK,
                b -> DatanodeProtocol.writeAccess(b, region, block, generation, token, STAMP, offset, data.length),
                Unpooled.wrappedBuffer(data), body -> null).get(10, TimeUnit.SECONDS);
    }

    private static byte[] read(RpcClient c, int region, int block, int generation, long token, int offset,
                               int length) throws Exception {
        return c.call(Opcode.READ_BLOCK,
                b -> DatanodeProtocol.writeAccess(b, region, block, generation, token, STAMP, offset, length),
                ByteBufUtil::getBytes).get(10, TimeUnit.SECONDS);
    }

    private static ErrorCode errorOf(ThrowingCall call) {
        try {
            call.run();
        } catch (ExecutionException e) {
            return TarnException.codeOf(e.getCause());
        } catch (Exception e) {
            return fail("unexpected " + e);
        }
        return fail("call succeeded");
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }

    private static byte[] data(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void registersWhatItServesAndHeartbeats() throws Exception {
        DramDatanode dn = startRegistered();
        assertThat(dn.datanodeId()).isEqualTo(1);
        assertThat(dn.address().getPort()).isPositive();
        RegisterRequest r = namenode.lastRegistration();
        assertThat(r.host()).isEqualTo("127.0.0.1");
        assertThat(r.port()).isEqualTo(dn.address().getPort());
        assertThat(r.storageClass()).isZero();
        assertThat(r.regionSize()).isEqualTo(1 << 20);
        assertThat(r.regionCount()).isEqualTo(2);
        assertThat(r.intact()).isFalse();
        assertThat(new java.util.UUID(r.storageIdHigh(), r.storageIdLow())).isEqualTo(dn.storageId());
        assertThat(dn.capacity()).isEqualTo(2 << 20);
        assertThat(dn.blockSize()).isEqualTo(BLOCK);
        assertThat(dn.capacityBlocks()).isEqualTo(32);
        assertThat(dn.backing()).isEqualTo(DramMode.MMAP);
        await("three heartbeats arrived", () -> namenode.heartbeats() >= 3);
        assertThat(namenode.registrations()).as("heartbeats, not re-registrations").hasSize(1);
    }

    @Test
    void writtenBytesReadBackOverTheWire() throws Exception {
        DramDatanode dn = startRegistered();
        RpcClient c = client(dn);
        byte[] d = data(BLOCK, 7);
        write(c, 1, 15, 1, token(dn, 1, 15, 1, BlockTokens.WRITE), 0, d);
        assertThat(read(c, 1, 15, 1, token(dn, 1, 15, 1, BlockTokens.READ), 0, BLOCK)).isEqualTo(d);
        assertThat(read(c, 1, 15, 1, token(dn, 1, 15, 1, BlockTokens.READ), 1000, 24))
                .isEqualTo(java.util.Arrays.copyOfRange(d, 1000, 1024));
        assertThat(c.call(Opcode.PING, b -> { }, body -> body.readableBytes()).get(10, TimeUnit.SECONDS)).isZero();
        assertThat(dn.metrics().bytesWritten()).isEqualTo(BLOCK);
        assertThat(dn.metrics().bytesRead()).isEqualTo(BLOCK + 24);
    }

    @Test
    void aReusedBlockRefusesItsStaleGeneration() throws Exception {
        DramDatanode dn = startRegistered();
        RpcClient c = client(dn);
        byte[] first = data(1000, 1);
        byte[] second = data(1000, 2);
        write(c, 0, 3, 1, token(dn, 0, 3, 1, BlockTokens.WRITE), 0, first);
        write(c, 0, 3, 2, token(dn, 0, 3, 2, BlockTokens.WRITE), 0, second);
        assertThat(errorOf(() -> read(c, 0, 3, 1, token(dn, 0, 3, 1, BlockTokens.READ), 0, 1000)))
                .isEqualTo(ErrorCode.STALE_GENERATION);
        assertThat(errorOf(() -> write(c, 0, 3, 1, token(dn, 0, 3, 1, BlockTokens.WRITE), 0, first)))
                .isEqualTo(ErrorCode.STALE_GENERATION);
        assertThat(read(c, 0, 3, 2, token(dn, 0, 3, 2, BlockTokens.READ), 0, 1000)).isEqualTo(second);
        assertThat(errorOf(() -> read(c, 0, 3, 3, token(dn, 0, 3, 3, BlockTokens.READ), 0, 1000)))
                .isEqualTo(ErrorCode.BLOCK_NOT_WRITTEN);
    }

    @Test
    void badTokensAndOutOfRangeRequestsAreRefusedAndTheConnectionStaysUsable() throws Exception {
        DramDatanode dn = startRegistered();
        RpcClient c = client(dn);
        assertThat(errorOf(() -> write(c, 0, 1, 1, 12345L, 0, new byte[10]))).isEqualTo(ErrorCode.INVALID_TOKEN);
        assertThat(errorOf(() -> write(c, 2, 0, 1, token(dn, 2, 0, 1, BlockTokens.WRITE), 0, new byte[10])))
                .isEqualTo(ErrorCode.OUT_OF_RANGE);
        assertThat(errorOf(() -> read(c, 0, 16, 1, token(dn, 0, 16, 1, BlockTokens.READ), 0, 1)))
                .isEqualTo(ErrorCode.OUT_OF_RANGE);
        assertThat(errorOf(() -> read(c, 0, 0, 1, token(dn, 0, 0, 1, BlockTokens.READ), BLOCK - 1, 2)))
                .isEqualTo(ErrorCode.OUT_OF_RANGE);
        write(c, 0, 1, 1, token(dn, 0, 1, 1, BlockTokens.WRITE), 0, new byte[] {42});
        assertThat(read(c, 0, 1, 1, token(dn, 0, 1, 1, BlockTokens.READ), 0, 1)).containsExactly(42);
        assertThat(dn.metrics().errors()).isEqualTo(4);
    }

    @Test
    void aTruncatedBodyClosesOnlyItsOwnConnection() throws Exception {
        DramDatanode dn = startRegistered();
        RpcClient bad = client(dn);
        assertThat(errorOf(() -> bad.call(Opcode.WRITE_BLOCK, b -> b.writeLong(1), body -> null)
                .get(10, TimeUnit.SECONDS))).isEqualTo(ErrorCode.MALFORMED_REQUEST);

        RpcClient good = client(dn);
        write(good, 1, 0, 1, token(dn, 1, 0, 1, BlockTokens.WRITE), 10, new byte[] {1, 2});
        assertThat(read(good, 1, 0, 1, token(dn, 1, 0, 1, BlockTokens.READ), 10, 2)).containsExactly(1, 2);
    }

    @Test
    void registersLateWhenTheNamenodeAppearsAfterIt() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ch.qos.logback.classic.Logger linkLog =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(NamenodeLink.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        linkLog.addAppender(logged);
        DramDatanode dn;
        try {
            dn = start(config("127.0.0.1:" + port).build());
            assertThat(dn.address().getPort()).as("serving before registration").isPositive();
            assertThat(dn.awaitRegistered(Duration.ofMillis(400))).isFalse();
        } finally {
            linkLog.detachAppender(logged);
        }
        assertThat(logged.list).as("about 8 failed attempts, one warning")
                .filteredOn(e -> e.getLevel() == Level.WARN && e.getFormattedMessage().contains(":" + port))
                .hasSize(1);
        assertThat(dn.datanodeId()).isEqualTo(-1);
        RpcClient c = client(dn);
        assertThat(errorOf(() -> read(c, 0, 0, 1, 0, 0, 1))).isEqualTo(ErrorCode.UNKNOWN_DATANODE);

        FakeNamenode late = new FakeNamenode(transport, BLOCK).start(new InetSocketAddress("127.0.0.1", port));
        cleanup.push(late);
        assertThat(dn.awaitRegistered(WAIT)).isTrue();
        assertThat(late.registrations()).hasSize(1);
        long t = late.tokens().issue(dn.datanodeId(), 0, 0, 1, BlockTokens.WRITE, STAMP);
        write(c, 0, 0, 1, t, 0, new byte[] {3});
        assertThat(read(c, 0, 0, 1, t, 0, 1)).containsExactly(3);
    }

    @Test
    void registersAgainWhenTheNamenodeForgetsIt() throws Exception {
        DramDatanode dn = startRegistered();
        RpcClient c = client(dn);
        long oldToken = token(dn, 0, 2, 1, BlockTokens.WRITE);
        write(c, 0, 2, 1, oldToken, 0, new byte[] {9});

        namenode.forgetDatanodes();
        await("the datanode registered again", () -> namenode.registrations().size() >= 2);
        assertThat(namenode.lastRegistration().intact()).as("it still holds its data").isTrue();
        await("the new key is in use", () -> dn.isRegistered()
                && errorOf(() -> read(c, 0, 2, 1, oldToken, 0, 1)) == ErrorCode.INVALID_TOKEN);
        assertThat(read(c, 0, 2, 1, token(dn, 0, 2, 1, BlockTokens.READ), 0, 1)).containsExactly(9);
    }

    @Test
    void registersAgainAfterLosingContactWithTheNamenode() throws Exception {
        DramDatanode dn = startRegistered();
        int port = namenode.port();
        namenode.stop();
        int heartbeats = namenode.heartbeats();
        Thread.sleep(200);
        FakeNamenode restarted = new FakeNamenode(transport, BLOCK).start(new InetSocketAddress("127.0.0.1", port));
        cleanup.push(restarted);
        await("registered with the restarted namenode", () -> restarted.registrations().size() == 1);
        await("heartbeating again", () -> restarted.heartbeats() > 0);
        assertThat(restarted.lastRegistration().intact()).isTrue();
        assertThat(dn.isRegistered()).isTrue();
        assertThat(namenode.heartbeats()).isEqualTo(heartbeats);
    }

    @Test
    void afterACrashARestartServesTheSameData() throws Exception {
        TarnConfig config = config(namenode.address()).build();
        DramDatanode first = start(config);
        assertThat(first.awaitRegistered(WAIT)).isTrue();
        byte[] d = data(BLOCK, 3);
        RpcClient c1 = client(first);
        write(c1, 1, 7, 4, token(first, 1, 7, 4, BlockTokens.WRITE), 0, d);
        Path dir = first.storageDirectory().orElseThrow();
        first.crash();
        assertThat(dir).as("a crash keeps the region files").exists();

        DramDatanode second = start(config);
        assertThat(second.intact()).isTrue();
        assertThat(second.storageId()).isEqualTo(first.storageId());
        assertThat(second.storageDirectory()).contains(dir);
        assertThat(second.awaitRegistered(WAIT)).isTrue();
        assertThat(namenode.lastRegistration().intact()).isTrue();
        assertThat(second.datanodeId()).isEqualTo(first.datanodeId());
        RpcClient c2 = client(second);
        assertThat(read(c2, 1, 7, 4, token(second, 1, 7, 4, BlockTokens.READ), 0, BLOCK)).isEqualTo(d);
        assertThat(errorOf(() -> read(c2, 1, 7, 3, token(second, 1, 7, 3, BlockTokens.READ), 0, 1)))
                .as("generations survived too").isEqualTo(ErrorCode.STALE_GENERATION);
    }

    @Test
    void aNamenodeThatForgotTheBlocksResetsTheGenerations() throws Exception {
        TarnConfig config = config(namenode.address()).build();
        DramDatanode first = start(config);
        assertThat(first.awaitRegistered(WAIT)).isTrue();
        RpcClient c1 = client(first);
        write(c1, 0, 5, 6, token(first, 0, 5, 6, BlockTokens.WRITE), 0, new byte[] {1});
        first.crash();

        namenode.answerResetGenerations(true);
        DramDatanode second = start(config);
        assertThat(second.awaitRegistered(WAIT)).isTrue();
        RpcClient c2 = client(second);
        assertThat(errorOf(() -> read(c2, 0, 5, 6, token(second, 0, 5, 6, BlockTokens.READ), 0, 1)))
                .isEqualTo(ErrorCode.BLOCK_NOT_WRITTEN);
        write(c2, 0, 5, 1, token(second, 0, 5, 1, BlockTokens.WRITE), 0, new byte[] {2});
        assertThat(read(c2, 0, 5, 1, token(second, 0, 5, 1, BlockTokens.READ), 0, 1)).containsExactly(2);
    }

    @Test
    void aCleanStopDeletesTheRegionFilesUnlessKept() throws Exception {
        DramDatanode dropped = startRegistered();
        Path droppedDir = dropped.storageDirectory().orElseThrow();
        dropped.close();
        assertThat(droppedDir).doesNotExist();

        TarnConfig keep = config(namenode.address()).set(TarnKeys.DRAM_KEEP, true).build();
        DramDatanode kept = start(keep);
        Path keptDir = kept.storageDirectory().orElseThrow();
        kept.close();
        assertThat(keptDir).exists();
        DramDatanode again = start(keep);
        assertThat(again.intact()).isTrue();
        assertThat(again.storageDirectory()).contains(keptDir);
    }

    @Test
    void twoDatanodesShareAPathWithoutSharingMemory() throws Exception {
        DramDatanode a = startRegistered();
        DramDatanode b = startRegistered();
        assertThat(b.storageId()).isNotEqualTo(a.storageId());
        assertThat(b.datanodeId()).isNotEqualTo(a.datanodeId());
        write(client(a), 0, 0, 1, token(a, 0, 0, 1, BlockTokens.WRITE), 0, new byte[] {1});
        assertThat(errorOf(() -> read(client(b), 0, 0, 1, token(b, 0, 0, 1, BlockTokens.READ), 0, 1)))
                .isEqualTo(ErrorCode.BLOCK_NOT_WRITTEN);
    }

    @Test
    void aDatanodeWithItsOwnTransportStopsServingOnClose() throws Exception {
        DramDatanode dn = DramDatanode.start(config(namenode.address()).build());
        try {
            assertThat(dn.awaitRegistered(WAIT)).isTrue();
        } finally {
            dn.close();
        }
        RpcClient c = client(dn);
        assertThat(errorOf(() -> c.call(Opcode.PING, b -> { }, body -> null).get(10, TimeUnit.SECONDS)))
                .isEqualTo(ErrorCode.CONNECTION_LOST);
    }

    @Test
    void mmapModeOnAnUnusablePathFailsTheStart() throws Exception {
        Path file = java.nio.file.Files.createFile(dramPath.resolve("plain-file"));
        assertThatThrownBy(() -> start(config(namenode.address()).set(TarnKeys.DRAM_PATH, file.toString()).build()))
                .isInstanceOf(IOException.class).hasMessageContaining("tarn.datanode.dram.mode = mmap");
    }
    @Test
    void directMemoryServesTheSameProtocol() throws Exception {
        DramDatanode dn = start(config(namenode.address()).set(TarnKeys.DRAM_MODE, DramMode.DIRECT).build());
        assertThat(dn.awaitRegistered(WAIT)).isTrue();
        assertThat(dn.backing()).isEqualTo(DramMode.DIRECT);
        assertThat(dn.storageDirectory()).isEmpty();
        RpcClient c = client(dn);
        byte[] d = data(5000, 11);
        write(c, 1, 2, 1, token(dn, 1, 2, 1, BlockTokens.WRITE), 300, d);
        assertThat(read(c, 1, 2, 1, token(dn, 1, 2, 1, BlockTokens.READ), 300, d.length)).isEqualTo(d);
    }

    @Test
    void manyClientsWritingAndReadingAtOnceEachGetTheirOwnBytes() throws Exception {
        DramDatanode dn = startRegistered();
        List<RpcClient> clients = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            clients.add(client(dn));
        }
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int n = 0; n < 32; n++) {
            int region = n / 16;
            int block = n % 16;
            long t = token(dn, region, block, 1, BlockTokens.WRITE);
            byte[] d = data(BLOCK, n);
            writes.add(clients.get(n % 4).call(Opcode.WRITE_BLOCK,
                    b -> DatanodeProtocol.writeAccess(b, region, block, 1, t, STAMP, 0, BLOCK),
                    Unpooled.wrappedBuffer(d), body -> null));
        }
        CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        List<CompletableFuture<byte[]>> reads = new ArrayList<>();
        for (int n = 0; n < 32; n++) {
            int region = n / 16;
            int block = n % 16;
            long t = token(dn, region, block, 1, BlockTokens.READ);
            reads.add(clients.get((n + 1) % 4).call(Opcode.READ_BLOCK,
                    b -> DatanodeProtocol.writeAccess(b, region, block, 1, t, STAMP, 0, BLOCK), ByteBufUtil::getBytes));
        }
        for (int n = 0; n < 32; n++) {
            assertThat(reads.get(n).get(30, TimeUnit.SECONDS)).as("block %d", n).isEqualTo(data(BLOCK, n));
        }
        assertThat(dn.metrics().bytesWritten()).isEqualTo(32L * BLOCK);
        assertThat(dn.metrics().bytesRead()).isEqualTo(32L * BLOCK);
    }

    /** True when something listens at {@code address} (the kernel completes the connect). */
    private static boolean accepts(InetSocketAddress address) {
        try (Socket s = new Socket()) {
            s.connect(address, 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static DeregisterRequest goodbye(DramDatanode dn, int datanodeId, boolean dataKept) {
        UUID sid = dn.storageId();
        return new DeregisterRequest(datanodeId, sid.getMostSignificantBits(), sid.getLeastSignificantBits(),
                dataKept);
    }

    @Test
    void aCleanStopDeregistersWhileStillServingThenSaysNothingMore() throws Exception {
        DramDatanode dn = startRegistered();
        int id = dn.datanodeId();
        InetSocketAddress dataPort = dn.address();
        AtomicBoolean servingAtGoodbye = new AtomicBoolean();
        namenode.onDeregistration(() -> servingAtGoodbye.set(accepts(dataPort)));

        dn.close();

        assertThat(namenode.deregistrations()).as("sent and acknowledged before close() returned")
                .containsExactly(goodbye(dn, id, false));
        assertThat(servingAtGoodbye).as("the data port was still open when the namenode heard it").isTrue();
        assertThat(accepts(dataPort)).as("and closed after").isFalse();
        int heartbeats = namenode.heartbeats();
        Thread.sleep(200);
        assertThat(namenode.heartbeats()).as("no heartbeat after the goodbye").isEqualTo(heartbeats);
        assertThat(namenode.registrations()).hasSize(1);
    }

    @Test
    void theGoodbyeSaysWhetherTheDataIsKept() throws Exception {
        DramDatanode kept = start(config(namenode.address()).set(TarnKeys.DRAM_KEEP, true).build());
        assertThat(kept.awaitRegistered(WAIT)).isTrue();
        kept.close();
        assertThat(namenode.deregistrations()).last().isEqualTo(goodbye(kept, kept.datanodeId(), true));

        DramDatanode direct = start(config(namenode.address()).set(TarnKeys.DRAM_KEEP, true)
                .set(TarnKeys.DRAM_MODE, DramMode.DIRECT).build());
        assertThat(direct.awaitRegistered(WAIT)).isTrue();
        direct.close();
        assertThat(namenode.deregistrations()).as("direct memory is freed whatever keep says")
                .last().isEqualTo(goodbye(direct, direct.datanodeId(), false));
        assertThat(namenode.deregistrations()).hasSize(2);
    }

    @Test
    void aCrashSaysNoGoodbye() throws Exception {
        DramDatanode dn = startRegistered();
        await("heartbeating", () -> namenode.heartbeats() > 0);
        dn.crash();
        dn.close();
        Thread.sleep(300);
        assertThat(namenode.deregistrations()).isEmpty();
    }

    @Test
    void aNamenodeThatDoesNotAnswerDelaysACleanStopByTwoSecondsAtMost() throws Exception {
        namenode.ignoreDeregistrations();
        DramDatanode dn = startRegistered();
        Path dir = dn.storageDirectory().orElseThrow();
        long started = System.nanoTime();
        dn.close();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(namenode.deregistrations()).hasSize(1);
        assertThat(tookMs).as("waited for the answer, but not for the 5 s RPC timeout").isBetween(1_500L, 4_500L);
        assertThat(dir).as("the stop completed").doesNotExist();
    }

    @Test
    void anUnregisteredDatanodeStopsAtOnceWithoutAGoodbye() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        DramDatanode dn = start(config("127.0.0.1:" + port).build());
        assertThat(dn.awaitRegistered(Duration.ofMillis(200))).isFalse();
        long started = System.nanoTime();
        dn.close();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1_000L);
        assertThat(namenode.deregistrations()).isEmpty();
    }
}
