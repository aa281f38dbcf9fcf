package io.tarn.client;

import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.DramMode;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.datanode.DatanodeMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Short-circuit access for a client on the datanode's host: the bytes are the TCP path's, and the
 * datanode's checks (generation, deleted files, writers of another generation) hold as they do
 * over TCP. Each test builds its own small cluster; the ones about block reuse give the datanode a
 * single block, so a new file necessarily gets the block a deleted one had, with a newer generation.
 */
class ShortCircuitTest {
    private static final int MIB = 1 << 20;

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static TarnClient client(MiniCluster cluster, ShortCircuitMode mode) {
        return TarnClient.connect(cluster.config().toBuilder().set(TarnKeys.CLIENT_SHORTCIRCUIT, mode).build());
    }

    /** A cluster whose one datanode holds exactly one block of 1 MiB. */
    /** A short-circuit client reading and writing half a block per request: two read-ahead ranges per block. */
    private static TarnClient halfChunkClient(MiniCluster cluster) {
        return TarnClient.connect(cluster.config().toBuilder()
                .set(TarnKeys.CLIENT_SHORTCIRCUIT, ShortCircuitMode.AUTO)
                .set(TarnKeys.CLIENT_IO_CHUNK, (long) MIB / 2).build());
    }

    private static MiniCluster oneBlockCluster() throws IOException {
        return MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, (long) MIB)
                .set(TarnKeys.DRAM_REGION_SIZE, (long) MIB)
                .set(TarnKeys.DRAM_CAPACITY, (long) MIB)
                .start();
    }

    private static ErrorCode codeOf(Throwable t) {
        Throwable c = t;
        while (c != null && !(c instanceof TarnException)) {
            c = c.getCause();
        }
        return c == null ? null : ((TarnException) c).code();
    }

    @Test
    void coLocatedClientCopiesDirectlyAndAgreesWithTcpByteForByte() throws Exception {
        assumeThat(ShortCircuitProtocol.bootId()).as("this host has a boot id").isNotEmpty();
        try (MiniCluster cluster = MiniCluster.builder().datanodes(2).start();
             TarnClient local = client(cluster, ShortCircuitMode.AUTO);
             TarnClient tcp = client(cluster, ShortCircuitMode.OFF)) {
            assertThat(cluster.datanode(0).offersShortCircuit()).isTrue();
            assertThat(local.clusterStatus().datanodes()).as("what tarn status shows")
                    .hasSize(2).allMatch(DatanodeStatus::shortCircuit);
            byte[] a = random(5 * MIB + 12_345, 1);
            byte[] b = random(3 * MIB + 7, 2);
            write(local, "/sc/a", a);
            long copiedIn = local.data().shortCircuitBytes();
            assertThat(copiedIn).isEqualTo(a.length);
            write(tcp, "/sc/b", b);
            assertThat(tcp.data().shortCircuitBytes()).isZero();
            long served = shortCircuitRequests(cluster);

            // Each path reads what the other wrote, and what it wrote itself.
            assertThat(read(tcp, "/sc/a")).isEqualTo(a);
            assertThat(read(local, "/sc/b")).isEqualTo(b);
            assertThat(read(local, "/sc/a")).isEqualTo(a);
            assertThat(local.data().shortCircuitBytes() - copiedIn).isEqualTo((long) a.length + b.length);
            assertThat(tcp.data().shortCircuitBytes()).isZero();
            assertThat(shortCircuitRequests(cluster)).isGreaterThan(served);

            // Positioned reads inside a block and across blocks.
            try (TarnInputStream in = local.open("/sc/a")) {
                byte[] piece = new byte[MIB + 100];
                in.readFully(MIB - 50, piece, 0, piece.length);
                assertThat(piece).isEqualTo(Arrays.copyOfRange(a, MIB - 50, 2 * MIB + 50));
            }
        }
    }

    private static long shortCircuitRequests(MiniCluster cluster) {
        long sum = 0;
        for (int i = 0; i < cluster.datanodeCount(); i++) {
            sum += cluster.datanode(i).metrics().shortCircuitRequests();
        }
        return sum;
    }

    @Test
    void readOfAReusedBlockIsStaleOnBothPathsAndNeverShowsTheNewFile() throws Exception {
        try (MiniCluster cluster = oneBlockCluster();
             TarnClient local = client(cluster, ShortCircuitMode.AUTO);
             TarnClient tcp = client(cluster, ShortCircuitMode.OFF)) {
            byte[] a = random(MIB, 3);
            write(local, "/a", a);
            BlockRef old = local.getBlock(local.getStatus("/a").fileId(), 0);
            assertThat(readBlock(local, old)).isEqualTo(a);

            local.delete("/a", false);
            byte[] b = random(MIB, 4);
            write(local, "/b", b);
            BlockRef reused = local.getBlock(local.getStatus("/b").fileId(), 0);
            assertThat(reused.regionId()).isEqualTo(old.regionId());
            assertThat(reused.blockIndex()).isEqualTo(old.blockIndex());
            assertThat(reused.generation()).isGreaterThan(old.generation());

            for (TarnClient c : new TarnClient[] {local, tcp}) {
                assertThatThrownBy(() -> readBlock(c, old))
                        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.STALE_GENERATION));
            }
            assertThat(read(local, "/b")).isEqualTo(b);
            assertThat(read(tcp, "/b")).isEqualTo(b);
        }
    }

    /**
     * A reader whose reads are short-circuit copies it makes itself asks
     * {@code tarn.client.readahead.shortcircuit} ahead (grants, no memory); over TCP the same reader
     * keeps to {@code tarn.client.readahead} (data it holds), and both read every byte.
     */
    @Test
    void shortCircuitReadersAskFurtherAheadThanTcpReaders() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, (long) MIB).set(TarnKeys.DRAM_CAPACITY, 32L * MIB).start()) {
            byte[] data = random(16 * MIB, 31);
            try (TarnClient writer = client(cluster, ShortCircuitMode.OFF)) {
                write(writer, "/ahead", data);
            }
            for (ShortCircuitMode mode : ShortCircuitMode.values()) {
                try (TarnClient c = TarnClient.connect(cluster.config().toBuilder()
                        .set(TarnKeys.CLIENT_SHORTCIRCUIT, mode)
                        .set(TarnKeys.CLIENT_READAHEAD, 2L * MIB)
                        .set(TarnKeys.CLIENT_READAHEAD_SHORTCIRCUIT, 8L * MIB).build());
                     TarnInputStream in = c.open("/ahead")) {
                    boolean shortCircuit = mode == ShortCircuitMode.AUTO;
                    ByteBuffer dst = ByteBuffer.allocateDirect(MIB);
                    byte[] back = new byte[data.length];
                    int most = 0;
                    for (int at = 0; at < data.length; at += MIB) {
                        assertThat(in.read(dst.clear())).isEqualTo(MIB);
                        dst.flip().get(back, at, MIB);
                        most = Math.max(most, in.requestsAhead());
                    }
                    assertThat(back).as("%s", mode).isEqualTo(data);
                    if (shortCircuit) {
                        assertThat(most).as("grants asked ahead, short-circuit").isBetween(5, 8);
                    } else {
                        assertThat(most).as("requests ahead over TCP").isBetween(1, 2);
                    }
                }
            }
        }
    }

    /**
     * A writer of direct buffers that copies short-circuit asks for grants (and blocks)
     * {@code tarn.client.write.behind.shortcircuit} ahead, topped up once half are used; over TCP
     * the same writer asks for none. Both files read back byte for byte.
     */
    @Test
    void shortCircuitWritersAskGrantsFurtherAheadThanTheWriteBehind() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, (long) MIB).set(TarnKeys.DRAM_CAPACITY, 64L * MIB).start()) {
            byte[] data = random(24 * MIB, 37);
            for (ShortCircuitMode mode : ShortCircuitMode.values()) {
                String path = "/ahead-" + mode;
                long most = 0;
                try (TarnClient c = TarnClient.connect(cluster.config().toBuilder()
                        .set(TarnKeys.CLIENT_SHORTCIRCUIT, mode)
                        .set(TarnKeys.CLIENT_WRITE_BEHIND, 2L * MIB)
                        .set(TarnKeys.CLIENT_WRITE_BEHIND_SHORTCIRCUIT, 8L * MIB).build());
                     TarnOutputStream out = c.create(path)) {
                    ByteBuffer src = ByteBuffer.allocateDirect(MIB);
                    for (int at = 0; at < data.length; at += MIB) {
                        out.write(src.clear().put(data, at, MIB).flip());
                        most = Math.max(most, out.grantedAhead());
                    }
                }
                try (TarnClient reader = client(cluster, ShortCircuitMode.OFF)) {
                    assertThat(read(reader, path)).as("%s", mode).isEqualTo(data);
                }
                if (mode == ShortCircuitMode.AUTO) {
                    assertThat(most).as("bytes granted ahead, short-circuit").isBetween(5L * MIB, 8L * MIB);
                } else {
                    assertThat(most).as("bytes granted ahead over TCP").isZero();
                }
            }
        }
    }

    /**
     * Byte-array writes (what Hadoop's streams make) go straight into the region once the chunk's
     * grant is there, as direct buffers do, instead of into the chunk and from there into the region:
     * after each 64 KiB write nothing waits in the chunk. Such a writer keeps one to two chunks of
     * grants asked ahead. Over TCP the bytes gather in the chunk. Both files read back byte for byte.
     */
    @Test
    void byteArrayWritesGoStraightIntoTheRegion() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, (long) MIB).set(TarnKeys.DRAM_CAPACITY, 32L * MIB).start()) {
            byte[] data = random(6 * MIB, 41);
            int piece = 64 << 10;
            for (ShortCircuitMode mode : ShortCircuitMode.values()) {
                String path = "/arrays-" + mode;
                int mostBuffered = 0;
                long mostAhead = 0;
                try (TarnClient c = client(cluster, mode); TarnOutputStream out = c.create(path)) {
                    for (int at = 0; at < data.length; at += piece) {
                        out.write(data, at, piece);
                        mostBuffered = Math.max(mostBuffered, out.bufferedBytes());
                        mostAhead = Math.max(mostAhead, out.grantedAhead());
                    }
                }
                try (TarnClient reader = client(cluster, ShortCircuitMode.OFF)) {
                    assertThat(read(reader, path)).as("%s", mode).isEqualTo(data);
                }
                if (mode == ShortCircuitMode.AUTO) {
                    assertThat(mostBuffered).as("bytes left in the chunk after a write").isZero();
                    assertThat(mostAhead).as("grants asked ahead").isBetween((long) MIB, 2L * MIB);
                } else {
                    assertThat(mostBuffered).as("over TCP").isEqualTo(MIB - piece);
                    assertThat(mostAhead).isZero();
                }
            }
        }
    }

    /**
     * Writes of every size mixed (below the 4 KiB from which arrays go straight to the region,
     * across chunk ends, direct buffers among arrays): what gathered in the chunk reaches the region
     * before the bytes after it, and the file reads back byte for byte.
     */
    @Test
    void mixedWritesKeepTheirOrder() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, (long) MIB).set(TarnKeys.DRAM_CAPACITY, 32L * MIB).start()) {
            byte[] data = random(5 * MIB + 4321, 43);
            int[] sizes = {100, (64 << 10) + 7, 1, 5000, MIB + 3, 4095, 4096, 300_001};
            for (ShortCircuitMode mode : ShortCircuitMode.values()) {
                String path = "/mixed-" + mode;
                try (TarnClient c = client(cluster, mode); TarnOutputStream out = c.create(path)) {
                    int at = 0;
                    for (int i = 0; at < data.length; i++) {
                        int n = Math.min(sizes[i % sizes.length], data.length - at);
                        if (i % 5 == 4) {
                            out.write(ByteBuffer.allocateDirect(n).put(data, at, n).flip());
                        } else if (n == 1) {
                            out.write(data[at]);
                        } else {
                            out.write(data, at, n);
                        }
                        at += n;
                    }
                }
                try (TarnClient reader = client(cluster, ShortCircuitMode.OFF)) {
                    assertThat(read(reader, path)).as("%s", mode).isEqualTo(data);
                }
            }
        }
    }

    /**
     * A reader of direct buffers leaves the read-ahead's copies to itself ({@link Landing#park}), so
     * the copy out of the region is made after the grant, possibly long after: the block may have
     * been given to another file meanwhile. The copy made then is refused, never returned.
     */
    @Test
    void readAheadGrantedBeforeTheBlockIsReusedIsStaleWhenTheReaderCopies() throws Exception {
        assumeThat(ShortCircuitProtocol.bootId()).as("this host has a boot id").isNotEmpty();
        try (MiniCluster cluster = oneBlockCluster();
             TarnClient local = halfChunkClient(cluster)) {
            byte[] a = random(MIB, 11);
            write(local, "/a", a);
            long copiedBefore = local.data().shortCircuitBytes();
            try (TarnInputStream in = local.open("/a")) {
                ByteBuffer dst = ByteBuffer.allocateDirect(MIB / 2);
                assertThat(in.read(dst)).isEqualTo(MIB / 2);
                assertThat(dst.flip()).isEqualTo(ByteBuffer.wrap(a, 0, MIB / 2));
                // The second half's grant is on its way.
                int parked = Eventually.value(Duration.ofSeconds(10), "the second half's read-ahead parked",
                        in::parkedAhead, n -> n != 0);
                assertThat(parked).as("the second half waits for the reader").isEqualTo(1);

                local.delete("/a", false);
                byte[] b = random(MIB, 12);
                write(local, "/b", b); // the only block, now with a newer generation

                assertThatThrownBy(() -> in.read(dst.clear()))
                        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.STALE_GENERATION));
                assertThat(read(local, "/b")).isEqualTo(b);
            }
            // Only the first half was copied out for /a; the refused copy is not counted.
            assertThat(local.data().shortCircuitBytes() - copiedBefore).isEqualTo((long) MIB / 2 + 2L * MIB);
        }
    }

    /**
     * A reader of arrays copies out of a view of the region (one copy, on its own thread): its
     * read-ahead is parked for it, and when the block is given to another file between two of its
     * copies out of the same view, the second is refused (STALE_GENERATION), never returned; with
     * {@code taken} the view was already in use when the block moved on.
     */
    @ParameterizedTest(name = "view already taken: {0}")
    @ValueSource(booleans = {false, true})
    void arrayReaderCopiesOutOfAViewAndAStaleOneIsRefused(boolean taken) throws Exception {
        assumeThat(ShortCircuitProtocol.bootId()).as("this host has a boot id").isNotEmpty();
        try (MiniCluster cluster = oneBlockCluster();
             TarnClient local = halfChunkClient(cluster)) {
            byte[] a = random(MIB, 13);
            write(local, "/a", a);
            try (TarnInputStream in = local.open("/a")) {
                byte[] back = new byte[MIB / 2];
                assertThat(in.readNBytes(back, 0, MIB / 2)).isEqualTo(MIB / 2);
                assertThat(back).isEqualTo(java.util.Arrays.copyOf(a, MIB / 2));
                // The second half's grant is on its way.
                int parked = Eventually.value(Duration.ofSeconds(10), "the second half's read-ahead parked",
                        in::parkedAhead, n -> n != 0);
                assertThat(parked).as("the second half waits for the reader").isEqualTo(1);
                byte[] some = new byte[1000];
                if (taken) {
                    assertThat(in.read(some)).isEqualTo(1000);
                    assertThat(some).isEqualTo(java.util.Arrays.copyOfRange(a, MIB / 2, MIB / 2 + 1000));
                }

                local.delete("/a", false);
                byte[] b = random(MIB, 14);
                write(local, "/b", b); // the only block, now with a newer generation

                assertThatThrownBy(() -> in.read(some))
                        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.STALE_GENERATION));
                assertThat(read(local, "/b")).isEqualTo(b);
            }
        }
    }

    /**
     * Writes from a small array (under 4 KiB) go through the stream's chunk; from a direct buffer,
     * straight into the region once granted.
     */
    @ParameterizedTest(name = "from a direct buffer: {0}")
    @ValueSource(booleans = {false, true})
    void writerOfADeletedFileCannotOverwriteTheBlocksNewOwner(boolean direct) throws Exception {
        try (MiniCluster cluster = oneBlockCluster();
             TarnClient local = client(cluster, ShortCircuitMode.AUTO);
             TarnClient other = client(cluster, ShortCircuitMode.AUTO)) {
            TarnOutputStream stale = local.create("/deleted");
            stale.write(random(1000, 5));
            stale.hflush();
            local.delete("/deleted", false);
            assertThatThrownBy(() -> local.open("/deleted")).isInstanceOf(FileNotFoundException.class);

            byte[] b = random(MIB, 6);
            write(other, "/new", b);
            long before = other.data().shortCircuitBytes();

            // The deleted file's writer goes on in the same block, with its old generation.
            assertThatThrownBy(() -> {
                byte[] more = random(64 << 10, 7);
                if (direct) {
                    stale.write(ByteBuffer.allocateDirect(more.length).put(more).flip());
                } else {
                    stale.write(more);
                }
                stale.hflush();
            }).satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.STALE_GENERATION));
            assertThatThrownBy(stale::close).isInstanceOf(IOException.class);
            assertThat(read(other, "/new")).isEqualTo(b);
            assertThat(other.data().shortCircuitBytes()).isEqualTo(before + b.length);
        }
    }

    @Test
    void writesFromDirectBuffersGoStraightIntoTheRegionByteForByte() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, (long) MIB).set(TarnKeys.DRAM_CAPACITY, 16L * MIB).start();
             TarnClient local = client(cluster, ShortCircuitMode.AUTO);
             TarnClient tcp = client(cluster, ShortCircuitMode.OFF)) {
            byte[] data = random(5 * MIB + 12_345, 21);
            ByteBuffer src = ByteBuffer.allocateDirect(data.length).put(data).flip();
            long before = local.data().shortCircuitBytes();
            long landedBefore = local.data().landedBytes();
            try (TarnOutputStream out = local.create("/direct")) {
                // Whole chunks (grants asked ahead), bytes from an array in between, a flush mid-chunk
                // (the chunks asked ahead no longer line up), odd sizes, a heap buffer at the end.
                out.write(src.slice(0, 2 * MIB));
                out.write(data, 2 * MIB, 1000);
                out.write(src.slice(2 * MIB + 1000, 700_000));
                out.flush();
                int at = 2 * MIB + 701_000;
                out.write(src.slice(at, MIB + 3));
                at += MIB + 3;
                out.write(ByteBuffer.wrap(data, at, data.length - at));
            }
            assertThat(tcp.getStatus("/direct").size()).isEqualTo(data.length);
            assertThat(read(tcp, "/direct")).isEqualTo(data);
            assertThat(local.data().shortCircuitBytes() - before).isEqualTo(data.length);
            // The direct buffers' bytes went straight into the region once their grants were there.
            assertThat(local.data().landedBytes() - landedBefore).isPositive();
        }
    }

    /**
     * A reader copies a block again and again while writers hand the block to new files and fill
     * it: every read either returns the first file's bytes exactly or fails with STALE_GENERATION,
     * never a mix with a newer file's bytes.
     */
    @Test
    void concurrentWriterOfANewerGenerationNeverLeaksIntoARead() throws Exception {
        assumeThat(ShortCircuitProtocol.bootId()).as("this host has a boot id").isNotEmpty();
        try (MiniCluster cluster = oneBlockCluster();
             TarnClient reader = client(cluster, ShortCircuitMode.AUTO);
             TarnClient writer = client(cluster, ShortCircuitMode.AUTO)) {
            for (int round = 0; round < 5; round++) {
                byte[] a = new byte[MIB];
                Arrays.fill(a, (byte) (2 * round + 1));
                write(writer, "/race", a);
                BlockRef ref = reader.getBlock(reader.getStatus("/race").fileId(), 0);
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong good = new AtomicLong();
                AtomicLong stale = new AtomicLong();
                AtomicReference<Throwable> wrong = new AtomicReference<>();
                Thread t = new Thread(() -> {
                    while (!stop.get() || stale.get() == 0) {
                        try {
                            byte[] got = readBlock(reader, ref);
                            if (!Arrays.equals(got, a)) {
                                wrong.set(new AssertionError("read returned bytes of another generation"));
                                return;
                            }
                            good.incrementAndGet();
                        } catch (Exception e) {
                            if (codeOf(e) != ErrorCode.STALE_GENERATION) {
                                wrong.set(e);
                                return;
                            }
                            stale.incrementAndGet();
                        }
                    }
                }, "sc-reader");
                t.start();
                Eventually.value(Duration.ofSeconds(30), "three good reads of round " + round
                        + " (or the reader's end)", good::get, n -> n >= 3 || !t.isAlive());
                writer.delete("/race", false);
                byte[] b = new byte[MIB];
                Arrays.fill(b, (byte) (2 * round + 2));
                write(writer, "/race-next", b);
                stop.set(true);
                t.join(TimeUnit.SECONDS.toMillis(30));
                assertThat(t.isAlive()).isFalse();
                if (wrong.get() != null) {
                    fail("round " + round, wrong.get());
                }
                assertThat(good.get()).isGreaterThanOrEqualTo(3);
                assertThat(stale.get()).isPositive();
                assertThat(read(writer, "/race-next")).isEqualTo(b);
                writer.delete("/race-next", false);
            }
            assertThat(reader.data().shortCircuitBytes()).isPositive();
        }
    }

    @Test
    void datanodeInDirectMemoryOrSwitchedOffIsServedOverTcp() throws Exception {
        for (MiniCluster.Builder b : new MiniCluster.Builder[] {
                MiniCluster.builder().datanodes(1).set(TarnKeys.DRAM_MODE, DramMode.DIRECT),
                MiniCluster.builder().datanodes(1).set(TarnKeys.DRAM_SHORTCIRCUIT, false)}) {
            try (MiniCluster cluster = b.start(); TarnClient c = client(cluster, ShortCircuitMode.AUTO)) {
                assertThat(cluster.datanode(0).offersShortCircuit()).isFalse();
                assertThat(c.clusterStatus().datanodes()).as("what tarn status shows")
                        .singleElement().matches(d -> !d.shortCircuit());
                byte[] data = random(2 * MIB + 3, 8);
                write(c, "/f", data);
                assertThat(read(c, "/f")).isEqualTo(data);
                assertThat(c.data().shortCircuitBytes()).isZero();
                assertThat(cluster.datanode(0).metrics().shortCircuitRequests()).isZero();
            }
        }
    }

    @Test
    void clientFallsBackToTcpWhenTheDatanodesFilesCannotBeOpened() throws Exception {
        assumeThat(ShortCircuitProtocol.bootId()).as("this host has a boot id").isNotEmpty();
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1).start();
             TarnClient c = client(cluster, ShortCircuitMode.AUTO)) {
            byte[] before = random(MIB, 9);
            write(c, "/before", before);
            // The datanode keeps its own mapping; a client opening the table now finds none.
            Path dir = cluster.datanode(0).storageDirectory().orElseThrow();
            Files.delete(dir.resolve(ShortCircuitProtocol.GENERATIONS_FILE));
            try (TarnClient late = client(cluster, ShortCircuitMode.AUTO)) {
                byte[] data = random(2 * MIB + 5, 10);
                write(late, "/after", data);
                assertThat(read(late, "/after")).isEqualTo(data);
                assertThat(read(late, "/before")).isEqualTo(before);
                assertThat(late.data().shortCircuitBytes()).isZero();
            }
        }
    }

    /** Reads a whole block through the client's data path (short-circuit or TCP, as configured). */
    private static byte[] readBlock(TarnClient client, BlockRef ref) throws Exception {
        ByteBuf buf;
        try {
            buf = client.data().read(ref, 0, ref.blockSize()).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | CompletionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }
}
