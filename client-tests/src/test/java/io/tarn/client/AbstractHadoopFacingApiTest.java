package io.tarn.client;

import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.LeaseException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Ownership;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client API Hadoop's FileSystem adapter builds on, over real datanodes with small blocks (so
 * appends cross block boundaries): append, stored attributes, batched block locations, mkdir without
 * parents, positioned ByteBuffer reads and unbuffer. A subclass picks how many namenodes share the
 * namespace (docs/partitioning.md); one cluster serves a whole class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractHadoopFacingApiTest {
    static final int BLOCK = 64 << 10;
    /** How often a test waiting for a dropped stream's cleaner collects garbage. */
    private static final long GC_EVERY_NANOS = Duration.ofMillis(20).toNanos();
    private final int namenodes;
    MiniCluster cluster;
    TarnClient client;

    AbstractHadoopFacingApiTest(int namenodes) {
        this.namenodes = namenodes;
    }

    @BeforeAll
    void start() throws IOException {
        cluster = MiniCluster.builder().namenodes(namenodes).datanodes(2)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.CLIENT_IO_CHUNK, 16L << 10)
                .start();
        client = TarnClient.connect(cluster.config());
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private byte[] readAll(String path) throws IOException {
        try (InputStream in = client.open(path)) {
            return in.readAllBytes();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100, BLOCK - 1, BLOCK, BLOCK + 5000})
    void appendContinuesAtTheEndAcrossBlockBoundaries(int initial) throws IOException {
        String path = "/append/" + initial;
        byte[] first = StreamsTest.random(initial, initial);
        byte[] second = StreamsTest.random(BLOCK + 777, initial + 1);
        byte[] third = StreamsTest.random(33, initial + 2);
        try (TarnOutputStream out = client.create(path, CreateOptions.OVERWRITE)) {
            out.write(first);
        }
        try (TarnOutputStream out = client.append(path)) {
            assertThat(out.position()).isEqualTo(initial);
            out.write(second);
        }
        try (TarnClient other = TarnClient.connect(cluster.config()); TarnOutputStream out = other.append(path)) {
            out.write(third);
        }
        byte[] expected = new byte[first.length + second.length + third.length];
        System.arraycopy(first, 0, expected, 0, first.length);
        System.arraycopy(second, 0, expected, first.length, second.length);
        System.arraycopy(third, 0, expected, first.length + second.length, third.length);
        assertThat(client.getStatus(path).size()).isEqualTo(expected.length);
        assertThat(Arrays.equals(readAll(path), expected)).as("content after two appends").isTrue();
    }

    @Test
    void appendWhileOpenForWritingFailsAndLosesNothing() throws IOException {
        try (TarnOutputStream out = client.create("/busy", CreateOptions.OVERWRITE)) {
            out.write(new byte[] {1, 2, 3});
            assertThatThrownBy(() -> client.append("/busy")).isInstanceOf(LeaseException.class)
                    .hasMessageContaining("already open for writing");
            try (TarnClient other = TarnClient.connect(cluster.config())) {
                assertThatThrownBy(() -> other.append("/busy")).isInstanceOf(LeaseException.class)
                        .hasMessageContaining("/busy");
            }
        }
        assertThat(readAll("/busy")).containsExactly(1, 2, 3);
        assertThatThrownBy(() -> client.append("/no-such-file")).isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void hsyncDuringAppendPublishesTheNewLength() throws IOException {
        try (TarnOutputStream out = client.create("/synced", CreateOptions.OVERWRITE)) {
            out.write(new byte[10]);
        }
        try (TarnOutputStream out = client.append("/synced")) {
            out.write(new byte[20]);
            out.hsync();
            FileStatus during = client.getStatus("/synced");
            assertThat(during.size()).isEqualTo(30);
            assertThat(during.underConstruction()).isTrue();
        }
    }

    @Test
    void ownershipAndTimesAreStoredAndReturned() throws IOException {
        FileStatus dir = client.mkdirs("/owned", new Ownership("ann", "analysts", 0750));
        assertThat(dir.ownership()).isEqualTo(new Ownership("ann", "analysts", 0750));
        try (TarnOutputStream out = client.create("/owned/f", CreateOptions.OVERWRITE)) {
            out.write(1);
        }
        FileStatus f = client.getStatus("/owned/f");
        assertThat(f.owner()).as("this JVM's user when none is named").isEqualTo(System.getProperty("user.name"));
        assertThat(f.group()).as("inherited from the directory").isEqualTo("analysts");
        assertThat(f.permission()).isEqualTo(Ownership.FILE_DEFAULT);

        assertThat(client.setOwner("/owned/f", "bob", null).ownership())
                .isEqualTo(new Ownership("bob", "analysts", 0644));
        assertThat(client.setOwner("/owned/f", null, "staff").group()).isEqualTo("staff");
        assertThat(client.setPermission("/owned/f", 0600).permission()).isEqualTo(0600);
        FileStatus timed = client.setTimes("/owned/f", 1_000_000L, -1);
        assertThat(timed.modificationTime()).isEqualTo(1_000_000L);
        assertThat(timed.accessTime()).isEqualTo(f.accessTime());
        assertThat(client.setTimes("/owned/f", -1, 2_000_000L).accessTime()).isEqualTo(2_000_000L);
        assertThat(client.list("/owned").get(0).ownership()).isEqualTo(new Ownership("bob", "staff", 0600));
        assertThatThrownBy(() -> client.setPermission("/owned/missing", 0600))
                .isInstanceOf(FileNotFoundException.class);
        assertThatThrownBy(() -> client.setPermission("/owned/f", 010000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("12-bit");
    }

    @Test
    void blockLocationsComeInOneBatchAndMatchSingleLookups() throws IOException {
        try (TarnOutputStream out = client.create("/located", CreateOptions.OVERWRITE)) {
            out.write(new byte[5 * BLOCK + 3]);
        }
        long id = client.getStatus("/located").fileId();
        java.util.List<io.tarn.common.fs.BlockRef> all = client.getBlocks(id, 0, 100);
        assertThat(all).hasSize(6);
        // Tokens carry the time they were issued in: lookups a stamp apart differ in them alone.
        for (int i = 0; i < all.size(); i++) {
            assertThat(client.getBlock(id, i)).as("block %d", i).usingRecursiveComparison()
                    .ignoringFields("token", "tokenStamp").isEqualTo(all.get(i));
        }
        assertThat(client.getBlocks(id, 4, 1)).usingRecursiveFieldByFieldElementComparatorIgnoringFields("token",
                "tokenStamp").containsExactly(all.get(4));
        assertThat(client.getBlocksAsync(id, 1, 3).join())
                .usingRecursiveFieldByFieldElementComparatorIgnoringFields("token", "tokenStamp")
                .containsExactlyElementsOf(all.subList(1, 4));
        assertThat(client.getBlocks(id, 6, 10)).isEmpty();
        assertThatThrownBy(() -> client.getBlocks(id + 1_000_000, 0, 1)).isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void mkdirWithoutParentsNeedsAnExistingDirectoryParent() throws IOException {
        FileStatus made = client.mkdir("/solo", new Ownership("", "", 0700));
        assertThat(made.isDirectory()).isTrue();
        assertThat(made.permission()).isEqualTo(0700);
        assertThat(client.mkdir("/solo", Ownership.UNSPECIFIED).fileId()).as("existing: as it is")
                .isEqualTo(made.fileId());
        assertThatThrownBy(() -> client.mkdir("/missing/child", Ownership.UNSPECIFIED))
                .isInstanceOf(FileNotFoundException.class);
        assertThat(client.exists("/missing")).isFalse();
        // Two files: with 2 or 4 namenodes, the coordinator holds "file" and another namenode "file0".
        for (String file : java.util.List.of("/solo/file", "/solo/file0")) {
            try (TarnOutputStream out = client.create(file, CreateOptions.OVERWRITE)) {
                out.write(1);
            }
            assertThatThrownBy(() -> client.mkdir(file + "/child", Ownership.UNSPECIFIED)).as(file)
                    .isInstanceOf(io.tarn.common.error.NotADirectoryException.class);
        }
    }

    @Test
    void positionedByteBufferReadsFillAcrossBlocksAndStopAtTheEnd() throws IOException {
        byte[] data = StreamsTest.random(2 * BLOCK + 100, 5);
        try (TarnOutputStream out = client.create("/bb", CreateOptions.OVERWRITE)) {
            out.write(data);
        }
        try (TarnInputStream in = client.open("/bb")) {
            java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(BLOCK + 50);
            in.readFully(BLOCK - 20, direct);
            direct.flip();
            byte[] got = new byte[direct.remaining()];
            direct.get(got);
            assertThat(Arrays.equals(got, Arrays.copyOfRange(data, BLOCK - 20, 2 * BLOCK + 30))).isTrue();
            assertThat(in.position()).as("positioned reads leave the stream where it was").isZero();
            java.nio.ByteBuffer tail = java.nio.ByteBuffer.allocate(500);
            assertThat(in.read(data.length - 10, tail)).isEqualTo(10);
            assertThat(in.read(data.length, tail)).isEqualTo(-1);
            assertThatThrownBy(() -> in.readFully(data.length - 5, java.nio.ByteBuffer.allocate(6)))
                    .isInstanceOf(java.io.EOFException.class);
        }
    }

    @Test
    void aStreamDroppedWithoutCloseGivesItsBuffersBack() throws Exception {
        try (TarnOutputStream out = client.create("/dropped", CreateOptions.OVERWRITE)) {
            out.write(new byte[3 * BLOCK]);
        }
        io.netty.buffer.ByteBuf held = openReadAndDrop("/dropped");
        assertThat(held.refCnt()).as("held by the stream while it lives").isPositive();
        // The stream's cleaner runs once it has been collected: collect every 20 ms, not at each poll,
        // so that the cleaner (and the reads it waits for) get the time between collections.
        long[] lastGc = {System.nanoTime() - GC_EVERY_NANOS};
        Eventually.value(Duration.ofSeconds(20), "the buffer released once the unclosed stream is unreachable",
                () -> {
                    if (held.refCnt() > 0 && System.nanoTime() - lastGc[0] >= GC_EVERY_NANOS) {
                        System.gc();
                        lastGc[0] = System.nanoTime();
                    }
                    return held.refCnt();
                }, refCnt -> refCnt == 0);
    }

    /** Reads one byte (so the stream holds a chunk and read-ahead), then forgets the stream. */
    private io.netty.buffer.ByteBuf openReadAndDrop(String path) throws IOException {
        TarnInputStream in = client.open(path);
        assertThat(in.read()).isZero();
        return in.currentBuffer();
    }

    @Test
    void unbufferKeepsThePositionAndReadsOnAfterwards() throws IOException {
        byte[] data = StreamsTest.random(3 * BLOCK, 99);
        try (TarnOutputStream out = client.create("/unbuffer", CreateOptions.OVERWRITE)) {
            out.write(data);
        }
        try (TarnInputStream in = client.open("/unbuffer")) {
            byte[] head = in.readNBytes(BLOCK + 10);
            in.unbuffer();
            assertThat(in.position()).isEqualTo(BLOCK + 10);
            byte[] rest = in.readAllBytes();
            assertThat(head.length + rest.length).isEqualTo(data.length);
            assertThat(Arrays.equals(rest, Arrays.copyOfRange(data, BLOCK + 10, data.length))).isTrue();
            in.unbuffer();
            in.unbuffer();
            assertThat(in.read()).isEqualTo(-1);
        }
    }
}
