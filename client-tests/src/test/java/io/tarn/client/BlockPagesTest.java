package io.tarn.client;

import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.DatanodeUnavailableException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Streams that ask the namenode for block locations several at a time: a writer allocates its
 * blocks past the first a page at a time (ALLOCATE_BLOCKS, twice the write-behind's worth: 8 blocks
 * here), a reader asks for {@link BlockLocations#REFS_PER_CALL} locations at once (GET_BLOCKS).
 * Small blocks (64 KiB) so that files span several pages.
 */
class BlockPagesTest {
    static final int BLOCK = 64 << 10;
    static MiniCluster cluster;
    static TarnClient client;
    /** tarn.client.shortcircuit = off: the TCP data path. */
    static TarnClient tcp;

    @BeforeAll
    static void start() throws IOException {
        cluster = MiniCluster.builder().datanodes(2)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.CLIENT_IO_CHUNK, 32L << 10)
                .set(TarnKeys.CLIENT_READAHEAD, 128L << 10)
                .set(TarnKeys.CLIENT_WRITE_BEHIND, 4L * BLOCK)
                .start();
        client = TarnClient.connect(cluster.config());
        tcp = TarnClient.connect(cluster.config().toBuilder()
                .set(TarnKeys.CLIENT_SHORTCIRCUIT, ShortCircuitMode.OFF).build());
    }

    @AfterAll
    static void stop() {
        tcp.close();
        client.close();
        cluster.close();
    }

    private static long freeBlocks() throws IOException {
        return client.clusterStatus().datanodes().stream().mapToLong(DatanodeStatus::freeBlocks).sum();
    }

    /**
     * Sizes around page ends: one block, the first page's end (1 + 8 blocks), two reader pages
     * (33 blocks) and a byte past it. The file keeps exactly the blocks its size needs (those asked
     * for ahead are freed at close, and by delete), and reads back byte for byte on both paths.
     */
    @ParameterizedTest
    @ValueSource(ints = {BLOCK, 9 * BLOCK, 9 * BLOCK + 1, 33 * BLOCK + 1, 20 * BLOCK + 12345})
    void filesSpanningSeveralPagesKeepTheirBlocksAndData(int size) throws IOException {
        byte[] data = StreamsTest.random(size, size);
        for (TarnClient writer : new TarnClient[] {client, tcp}) {
            long freeBefore = freeBlocks();
            String path = "/pages/" + size;
            try (TarnOutputStream out = writer.create(path, CreateOptions.OVERWRITE)) {
                ByteBuffer direct = ByteBuffer.allocateDirect(size);
                direct.put(data, 0, size / 2).flip();
                out.write(direct); // whole chunks from a direct buffer, then arrays of odd sizes
                for (int at = size / 2; at < size; at += 10_007) {
                    out.write(data, at, Math.min(10_007, size - at));
                }
            }
            long fileId = client.getStatus(path).fileId();
            int blocks = (size + BLOCK - 1) / BLOCK;
            List<BlockRef> refs = client.getBlocks(fileId, 0, 1000);
            assertThat(refs).hasSize(blocks);
            assertThat(freeBlocks()).isEqualTo(freeBefore - blocks);
            for (TarnClient reader : new TarnClient[] {client, tcp}) {
                try (TarnInputStream in = reader.open(path)) {
                    assertThat(in.readAllBytes()).isEqualTo(data);
                }
                try (TarnInputStream in = reader.open(path)) { // backwards: every page asked from its end
                    byte[] piece = new byte[100];
                    for (int b = blocks - 1; b >= 0; b -= 3) {
                        long pos = (long) b * BLOCK;
                        int n = (int) Math.min(piece.length, size - pos);
                        in.readFully(pos, piece, 0, n);
                        for (int i = 0; i < n; i++) {
                            assertThat(piece[i]).isEqualTo(data[(int) pos + i]);
                        }
                    }
                }
            }
            client.delete(path, false);
            assertThat(freeBlocks()).isEqualTo(freeBefore);
        }
    }

    /**
     * A page naming a block on a stopped datanode fails as a whole (GET_BLOCKS answers for all of
     * its blocks or none); the blocks on the live datanode are then asked for one by one and read,
     * and those on the stopped one fail naming the loss, as before pages.
     */
    @ParameterizedTest
    @EnumSource(ShortCircuitMode.class)
    void blocksOnALiveDatanodeAreReadWhenTheirPageNamesADeadOne(ShortCircuitMode mode) throws Exception {
        try (MiniCluster small = MiniCluster.builder().datanodes(2).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DATANODE_TIMEOUT, 3_600_000L).start();
             TarnClient reader = TarnClient.connect(small.config().toBuilder()
                     .set(TarnKeys.CLIENT_SHORTCIRCUIT, mode).build())) {
            byte[] data = StreamsTest.random(6 * BLOCK, 21);
            try (TarnOutputStream out = reader.create("/spread")) {
                out.write(data);
            }
            List<BlockRef> refs = reader.getBlocks(reader.getStatus("/spread").fileId(), 0, 6);
            int stoppedPort = small.datanode(1).address().getPort();
            assertThat(refs).anyMatch(r -> r.port() == stoppedPort).anyMatch(r -> r.port() != stoppedPort);
            small.stopDatanode(1);
            try (TarnInputStream in = reader.open("/spread")) {
                byte[] piece = new byte[BLOCK];
                for (int b = 0; b < refs.size(); b++) {
                    long pos = (long) b * BLOCK;
                    if (refs.get(b).port() == stoppedPort) {
                        assertThatThrownBy(() -> in.readFully(pos, piece, 0, BLOCK))
                                .isInstanceOf(DatanodeUnavailableException.class);
                    } else {
                        in.readFully(pos, piece, 0, BLOCK);
                        assertThat(piece).isEqualTo(Arrays.copyOfRange(data, (int) pos, (int) pos + BLOCK));
                    }
                }
            }
        }
    }
}
