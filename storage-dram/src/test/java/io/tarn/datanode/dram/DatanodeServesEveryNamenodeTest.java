package io.tarn.datanode.dram;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.DramMode;
import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Partitions;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.NamenodeLink;
import io.tarn.namenode.Namenode;
import io.tarn.namenode.NamenodeService;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.RegionSet;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

/**
 * One DRAM datanode with 8 regions and two real namenodes (partitions 0 and 1 of the same
 * two-address {@code tarn.namenode.address}) over loopback TCP: each namenode manages half of the
 * regions, tokens of one never open the other's, and one namenode down leaves the other's blocks
 * served.
 */
@Timeout(60)
class DatanodeServesEveryNamenodeTest {
    private static final int BLOCK = 64 << 10;
    private static final long REGION = 256 << 10;
    private static final int REGIONS = 8;
    private static final long CLIENT = 0x5EED;
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dramPath;

    private Transport transport;
    private String addresses;
    private final Namenode[] namenodes = new Namenode[2];
    private final Deque<AutoCloseable> cleanup = new ArrayDeque<>();
    private final AtomicInteger names = new AtomicInteger();

    @BeforeEach
    void startNamenodes() throws IOException {
        transport = Transports.create(TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.RPC_IO_THREADS, 2)
                .build());
        int[] ports = freePorts();
        addresses = "127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1];
        startNamenode(0);
        startNamenode(1);
    }

    @AfterEach
    void stopAll() throws Exception {
        while (!cleanup.isEmpty()) {
            cleanup.pop().close();
        }
        for (Namenode nn : namenodes) {
            if (nn != null) {
                nn.close();
            }
        }
        transport.close();
    }

    /** Two ports free right now, so that both namenodes can be configured with the same address list. */
    private static int[] freePorts() throws IOException {
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
            return new int[] {a.getLocalPort(), b.getLocalPort()};
        }
    }

    private void startNamenode(int partition) throws IOException {
        TarnConfig config = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.NAMENODE_ADDRESS, addresses)
                .set(TarnKeys.NAMENODE_PARTITION, partition)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DATANODE_TIMEOUT, 600_000L)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.NONE) // restarts come back empty here
                .build();
        namenodes[partition] = Namenode.start(config, transport);
    }

    private void stopNamenode(int partition) {
        namenodes[partition].close();
        namenodes[partition] = null;
    }

    private NamenodeService nn(int partition) {
        return namenodes[partition].service();
    }

    private TarnConfig.Builder datanodeConfig() {
        return TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.RPC_TIMEOUT, 5_000L)
                .set(TarnKeys.NAMENODE_ADDRESS, addresses)
                .set(TarnKeys.DATANODE_BIND, "127.0.0.1:0")
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DRAM_REGION_SIZE, REGION)
                .set(TarnKeys.DRAM_CAPACITY, REGIONS * REGION)
                .set(TarnKeys.DRAM_MODE, DramMode.MMAP)
                .set(TarnKeys.DRAM_PATH, dramPath.toString())
                .set(TarnKeys.DRAM_KEEP, true);
    }

    private DramDatanode startDatanode() throws IOException {
        DramDatanode dn = DramDatanode.start(datanodeConfig().build(), transport);
        cleanup.push(dn);
        return dn;
    }

    private DramDatanode startRegistered() throws Exception {
        DramDatanode dn = startDatanode();
        assertThat(dn.awaitRegistered(WAIT)).isTrue();
        return dn;
    }

    /** A new file owned by {@code partition}'s namenode (its name hashes there), with its id. */
    private long newFile(int partition) throws Exception {
        String name;
        do {
            name = "part-" + names.getAndIncrement();
        } while (Partitions.ofName(name, 2) != partition);
        return nn(partition).create(new CreateRequest("/" + name, FileType.FILE, 0, 0, CLIENT, "",
                Ownership.UNSPECIFIED)).fileId();
    }

    private BlockRef writeRef(int partition, long fileId, int index) throws Exception {
        return nn(partition).files().getBlock(fileId, index, true, CLIENT, "");
    }

    private BlockRef readRef(int partition, long fileId) throws Exception {
        return nn(partition).files().getBlock(fileId, 0, false, 0, "");
    }

    private RpcClient client(DramDatanode dn) {
        RpcClient c = transport.connect(dn.address());
        cleanup.push(c);
        return c;
    }

    private static void write(RpcClient c, int region, int block, int generation, long token, long stamp,
                              byte[] data) throws Exception {
        c.call(Opcode.WRITE_BLOCK, b -> DatanodeProtocol.writeAccess(b, region, block, generation, token, stamp, 0,
                data.length), Unpooled.wrappedBuffer(data), body -> null).get(10, TimeUnit.SECONDS);
    }

    private static byte[] read(RpcClient c, int region, int block, int generation, long token, long stamp,
                               int length) throws Exception {
        return c.call(Opcode.READ_BLOCK, b -> DatanodeProtocol.writeAccess(b, region, block, generation, token,
                stamp, 0, length), ByteBufUtil::getBytes).get(10, TimeUnit.SECONDS);
    }

    private static void write(RpcClient c, BlockRef ref, byte[] data) throws Exception {
        write(c, ref.regionId(), ref.blockIndex(), ref.generation(), ref.token(), ref.tokenStamp(), data);
    }

    private static byte[] read(RpcClient c, BlockRef ref, int length) throws Exception {
        return read(c, ref.regionId(), ref.blockIndex(), ref.generation(), ref.token(), ref.tokenStamp(), length);
    }

    /** The error a call fails with, as "CODE: message". */
    private static String errorOf(Callable call) {
        Throwable t = catchThrowable(call::run);
        assertThat(t).as("the call fails").isInstanceOf(ExecutionException.class);
        return TarnException.codeOf(t.getCause()) + ": " + t.getCause().getMessage();
    }

    @FunctionalInterface
    private interface Callable {
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

    private DatanodeInfo seenBy(int partition, DramDatanode dn) {
        return nn(partition).datanodes().get(dn.datanodeId(partition));
    }

    @Test
    void registersWithBothAndEachNamenodeManagesItsHalfOfTheRegions() throws Exception {
        DramDatanode dn = startRegistered();
        assertThat(dn.namenodeCount()).isEqualTo(2);
        for (int p = 0; p < 2; p++) {
            DatanodeInfo info = seenBy(p, dn);
            assertThat(nn(p).datanodes().size()).isEqualTo(1);
            assertThat(info.regions()).as("namenode %d", p).isEqualTo(new RegionSet(p, 2, 4));
            assertThat(info.capacityBlocks()).isEqualTo(4 * REGION / BLOCK);
            assertThat(info.alive()).isTrue();
        }
        assertThat(dn.capacityBlocks()).as("the datanode offers both halves").isEqualTo(REGIONS * REGION / BLOCK);
    }

    @Test
    void eachNamenodeAllocatesOnlyFromItsOwnRegions() throws Exception {
        startRegistered();
        int blocksEach = (int) (4 * REGION / BLOCK);
        for (int p = 0; p < 2; p++) {
            long f = newFile(p);
            List<Integer> regions = new ArrayList<>();
            for (int i = 0; i < blocksEach; i++) {
                regions.add(writeRef(p, f, i).regionId());
            }
            int partition = p;
            assertThat(regions).as("namenode %d", p).allMatch(r -> r % 2 == partition)
                    .containsOnly(p, p + 2, p + 4, p + 6);
            Throwable full = catchThrowable(() -> writeRef(partition, f, blocksEach));
            assertThat(TarnException.codeOf(full)).isEqualTo(ErrorCode.NO_SPACE);
        }
    }

    @Test
    void aBlockWrittenThroughOneNamenodeReadsBackThroughItAndOnlyWithItsTokens() throws Exception {
        DramDatanode dn = startRegistered();
        RpcClient c = client(dn);
        long f1 = newFile(1);
        BlockRef w1 = writeRef(1, f1, 0);
        byte[] d1 = data(5000, 1);
        write(c, w1, d1);
        nn(1).files().close(f1, CLIENT, d1.length);
        BlockRef r1 = readRef(1, f1);
        assertThat(r1.regionId() % 2).isEqualTo(1);
        assertThat(read(c, r1, d1.length)).isEqualTo(d1);

        long f0 = newFile(0);
        BlockRef w0 = writeRef(0, f0, 0);
        byte[] d0 = data(300, 0);
        write(c, w0, d0);
        assertThat(read(c, readRef(0, f0), d0.length)).isEqualTo(d0);

        // A token names its issuer: the datanode checks it with that namenode's keys and its id there, so
        // namenode 0's token passed off as namenode 1's, or made for another datanode, opens nothing.
        BlockTokens keyOf0 = nn(0).tokens();
        long asIssuedBy1 = BlockTokens.stampOf(1, BlockTokens.keyId(r1.tokenStamp()),
                BlockTokens.expiryMillis(r1.tokenStamp()) / 1000);
        long forged = keyOf0.issue(dn.datanodeId(1), r1.regionId(), r1.blockIndex(), r1.generation(),
                BlockTokens.READ, asIssuedBy1);
        assertThat(errorOf(() -> read(c, r1.regionId(), r1.blockIndex(), r1.generation(), forged, asIssuedBy1,
                d1.length))).startsWith(ErrorCode.INVALID_TOKEN + ": READ_BLOCK region " + r1.regionId());
        long stamp0 = keyOf0.stamp();
        long forgedWrite = keyOf0.issue(dn.datanodeId(0) + 1, r1.regionId(), r1.blockIndex(), r1.generation(),
                BlockTokens.WRITE, stamp0); // another datanode's
        assertThat(errorOf(() -> write(c, r1.regionId(), r1.blockIndex(), r1.generation(), forgedWrite, stamp0,
                d0))).startsWith(ErrorCode.INVALID_TOKEN + ": ");
        assertThat(read(c, r1, d1.length)).as("untouched").isEqualTo(d1);
    }

    @Test
    void oneNamenodeStoppedLeavesTheOthersBlocksServedAndItIsRetriedUntilBack() throws Exception {
        DramDatanode dn = startRegistered();
        RpcClient c = client(dn);
        long f0 = newFile(0);
        byte[] d0 = data(BLOCK, 10);
        write(c, writeRef(0, f0, 0), d0);
        long f1 = newFile(1);
        BlockRef w1 = writeRef(1, f1, 0);
        write(c, w1, data(100, 11));

        ListAppender<ILoggingEvent> logged = captureLinkLog();
        try {
            stopNamenode(1);
            await("the link to namenode 1 noticed", () -> logged.list.stream()
                    .anyMatch(e -> e.getLevel() == Level.WARN));
            long heartbeat = seenBy(0, dn).lastHeartbeat();
            await("namenode 0 keeps getting heartbeats", () -> seenBy(0, dn).lastHeartbeat() > heartbeat);
            Thread.sleep(300);
            assertThat(read(c, readRef(0, f0), BLOCK)).as("namenode 0's block").isEqualTo(d0);
            BlockRef more = writeRef(0, f0, 1);
            write(c, more, data(10, 12));
            assertThat(read(c, more, 10)).isEqualTo(data(10, 12));
            assertThat(seenBy(0, dn).alive()).isTrue();
            assertThat(dn.isRegistered(0)).isTrue();
        } finally {
            ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(NamenodeLink.class)).detachAppender(logged);
        }
        assertThat(logged.list).as("about 6 failed attempts, one warning, naming namenode 1 only")
                .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage()).contains(addresses.split(",")[1]));

        startNamenode(1);
        await("registered with the restarted namenode 1", () -> nn(1).datanodes().size() == 1 && dn.isRegistered());
        assertThat(seenBy(1, dn).regions()).isEqualTo(new RegionSet(1, 2, 4));
        long again = newFile(1);
        BlockRef fresh = writeRef(1, again, 0);
        // The namenode registers the datanode before the datanode has the new key from its answer.
        await("the datanode took the restarted namenode 1's key",
                () -> catchThrowable(() -> write(c, fresh, data(20, 13))) == null);
        assertThat(errorOf(() -> read(c, w1, 100))).as("the old namenode 1's key is gone")
                .startsWith(ErrorCode.INVALID_TOKEN + ": ");
        assertThat(read(c, readRef(0, f0), BLOCK)).as("namenode 0's generations were not reset").isEqualTo(d0);
        assertThat(read(c, fresh, 20)).isEqualTo(data(20, 13));
    }

    private static ListAppender<ILoggingEvent> captureLinkLog() {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(NamenodeLink.class)).addAppender(logged);
        return logged;
    }

    @Test
    void theRegionsOfANamenodeThatIsNotUpYetAreRefusedNamingIt() throws Exception {
        stopNamenode(1);
        DramDatanode dn = startDatanode();
        await("registered with namenode 0", () -> dn.isRegistered(0));
        assertThat(dn.isRegistered()).isFalse();
        RpcClient c = client(dn);
        assertThat(errorOf(() -> read(c, 3, 0, 1, 0, 0, 1))).startsWith(ErrorCode.UNKNOWN_DATANODE + ": ")
                .contains("not registered yet").contains("namenode 1 (" + addresses.split(",")[1] + ")");
        long f0 = newFile(0);
        BlockRef w0 = writeRef(0, f0, 0);
        write(c, w0, new byte[] {7});
        assertThat(read(c, w0, 1)).containsExactly(7);

        startNamenode(1);
        assertThat(dn.awaitRegistered(WAIT)).isTrue();
        BlockRef w1 = writeRef(1, newFile(1), 0);
        write(c, w1, new byte[] {8});
        assertThat(read(c, w1, 1)).containsExactly(8);
    }

    @Test
    void aRestartReRegistersIntactWithEveryNamenodeAndBothKeepTheirBlocks() throws Exception {
        DramDatanode first = startRegistered();
        RpcClient c1 = client(first);
        long[] files = {newFile(0), newFile(1)};
        byte[][] written = {data(700, 20), data(900, 21)};
        for (int p = 0; p < 2; p++) {
            write(c1, writeRef(p, files[p], 0), written[p]);
            nn(p).files().close(files[p], CLIENT, written[p].length);
        }
        first.crash();

        DramDatanode second = startDatanode();
        assertThat(second.intact()).isTrue();
        assertThat(second.awaitRegistered(WAIT)).isTrue();
        RpcClient c2 = client(second);
        for (int p = 0; p < 2; p++) {
            assertThat(second.datanodeId(p)).isEqualTo(first.datanodeId(p));
            assertThat(read(c2, readRef(p, files[p]), written[p].length)).as("namenode %d's block", p)
                    .isEqualTo(written[p]);
        }
    }

    @Test
    void aCleanStopDeregistersFromEveryNamenode() throws Exception {
        DramDatanode dn = startRegistered();
        dn.close();
        for (int p = 0; p < 2; p++) {
            assertThat(seenBy(p, dn).liveness()).as("namenode %d", p).isEqualTo(DatanodeInfo.Liveness.STOPPED);
        }
    }

    @Test
    void fewerRegionsThanNamenodesRefusesToStartNamingTheKeys() {
        assertThatThrownBy(() -> DramDatanode.start(datanodeConfig().set(TarnKeys.DRAM_CAPACITY, REGION).build(),
                transport))
                .isInstanceOf(TarnException.class)
                .satisfies(e -> assertThat(((TarnException) e).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessageContaining("tarn.datanode.dram.capacity")
                .hasMessageContaining("tarn.datanode.dram.region.size")
                .hasMessageContaining("holds 1 region(s)").hasMessageContaining("the 2 namenodes");
        assertThat(nn(0).datanodes().size()).isZero();
    }

    @Test
    void aNamenodeListedTwiceRefusesToStart() {
        String twice = addresses.split(",")[0] + "," + addresses.split(",")[0];
        assertThatThrownBy(() -> DramDatanode.start(datanodeConfig().set(TarnKeys.NAMENODE_ADDRESS, twice).build(),
                transport))
                .isInstanceOf(TarnException.class).hasMessageContaining("lists " + addresses.split(",")[0] + " twice");
    }
}
