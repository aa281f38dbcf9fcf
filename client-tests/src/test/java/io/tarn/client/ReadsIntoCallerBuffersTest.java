package io.tarn.client;

import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads over TCP whose data the transport receives straight into the caller's direct buffer
 * ({@link Landing}): sequential and positional, mixed with reads that take the usual way (heap
 * buffers, small or partial buffers, seeks), always byte for byte.
 */
class ReadsIntoCallerBuffersTest {
    static final int BLOCK = 4 << 20;
    static final int CHUNK = 1 << 20;
    static MiniCluster cluster;
    static TarnClient client;
    static byte[] data;

    @BeforeAll
    static void start() throws IOException {
        cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.CLIENT_IO_CHUNK, (long) CHUNK)
                .set(TarnKeys.CLIENT_READAHEAD, 3L * CHUNK)
                .set(TarnKeys.CLIENT_SHORTCIRCUIT, ShortCircuitMode.OFF)
                .start();
        client = TarnClient.connect(cluster.config());
        data = new byte[3 * BLOCK + 12_345];
        new Random(21).nextBytes(data);
        try (TarnOutputStream out = client.create("/landing/file")) {
            out.write(data);
        }
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static byte[] bytes(ByteBuffer filled) {
        byte[] b = new byte[filled.position()];
        filled.duplicate().flip().get(b);
        return b;
    }

    @Test
    void sequentialReadsIntoDirectBuffersReadTheRightBytes() throws IOException {
        ByteBuffer dst = ByteBuffer.allocateDirect(CHUNK);
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        try (TarnInputStream in = client.open("/landing/file")) {
            int n;
            while ((n = in.read(dst.clear())) >= 0) {
                assertThat(n).isEqualTo(dst.position());
                got.write(bytes(dst), 0, n);
            }
        }
        assertThat(got.toByteArray()).isEqualTo(data);
    }

    @Test
    void aReaderWaitingForItsDataHasItLandInItsBuffer() throws IOException {
        // While reading on, whether a chunk lands depends on whether this thread waits for it before
        // its data arrives, which a busy machine decides. After a seek back nothing is in flight: the
        // read asks for its chunk and offers the buffer at once, a round trip before any data can
        // come, so landing does not depend on the timing (short of this thread being descheduled for
        // that long, every time).
        long landedBefore = client.data().landedBytes();
        ByteBuffer dst = ByteBuffer.allocateDirect(CHUNK);
        try (TarnInputStream in = client.open("/landing/file")) {
            in.seek(data.length); // the end: every seek below goes back
            for (int at = (data.length - 1) / CHUNK * CHUNK; at >= 0; at -= CHUNK) {
                in.seek(at);
                int n = in.read(dst.clear());
                assertThat(n).isEqualTo(Math.min(CHUNK, data.length - at));
                assertThat(bytes(dst)).isEqualTo(Arrays.copyOfRange(data, at, at + n));
            }
        }
        assertThat(client.data().landedBytes() - landedBefore).isPositive();
    }

    @Test
    void mixedBufferKindsSizesAndSeeksReadTheRightBytes() throws IOException {
        Random random = new Random(5);
        try (TarnInputStream in = client.open("/landing/file")) {
            for (int i = 0; i < 40; i++) {
                if (random.nextInt(5) == 0) {
                    in.seek(random.nextInt(data.length));
                }
                long at = in.position();
                int size = switch (random.nextInt(4)) {
                    case 0 -> CHUNK;
                    case 1 -> CHUNK + CHUNK / 2 + random.nextInt(100);
                    case 2 -> random.nextInt(CHUNK);
                    default -> 2 * CHUNK + 1;
                };
                ByteBuffer dst = random.nextBoolean() ? ByteBuffer.allocateDirect(size + 16)
                        : ByteBuffer.allocate(size + 16);
                dst.position(16 - random.nextInt(16)); // not always at 0
                int start = dst.position();
                int n = in.read(dst);
                if (at == data.length) {
                    assertThat(n).isEqualTo(size + 16 - start == 0 ? 0 : -1);
                    continue;
                }
                assertThat(n).isEqualTo((int) Math.min(size + 16 - start, data.length - at));
                byte[] b = new byte[n];
                dst.flip().position(start);
                dst.get(b);
                assertThat(b).isEqualTo(Arrays.copyOfRange(data, (int) at, (int) at + n));
                assertThat(in.position()).isEqualTo(at + n);
            }
        }
    }

    @Test
    void positionalReadsIntoDirectBuffersAcrossBlocks() throws Exception {
        long landedBefore = client.data().landedBytes();
        try (TarnInputStream in = client.open("/landing/file")) {
            int pos = BLOCK - CHUNK / 2 - 3; // starts inside the first block, ends inside the third
            ByteBuffer dst = ByteBuffer.allocateDirect(BLOCK + 2 * CHUNK);
            in.readFully(pos, dst);
            assertThat(bytes(dst)).isEqualTo(Arrays.copyOfRange(data, pos, pos + dst.capacity()));

            // Many at once, each into its own part of one buffer.
            ByteBuffer whole = ByteBuffer.allocateDirect(data.length);
            List<CompletableFuture<Integer>> reads = new ArrayList<>();
            for (int at = 0; at < data.length; at += CHUNK + 7) {
                int len = Math.min(CHUNK + 7, data.length - at);
                reads.add(in.readAsync(at, whole.duplicate().position(at).limit(at + len)));
            }
            for (CompletableFuture<Integer> r : reads) {
                assertThat(r.get()).isPositive();
            }
            byte[] b = new byte[data.length];
            whole.get(0, b);
            assertThat(b).isEqualTo(data);
        }
        assertThat(client.data().landedBytes() - landedBefore).isPositive();
    }

    @Test
    void shortCircuitReadsCopyStraightIntoTheCallersBuffer() throws IOException {
        try (TarnClient local = TarnClient.connect(cluster.config().toBuilder()
                .set(TarnKeys.CLIENT_SHORTCIRCUIT, ShortCircuitMode.AUTO).build())) {
            ByteBuffer dst = ByteBuffer.allocateDirect(CHUNK);
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            try (TarnInputStream in = local.open("/landing/file")) {
                int n;
                while ((n = in.read(dst.clear())) >= 0) {
                    got.write(bytes(dst), 0, n);
                }
                ByteBuffer at = ByteBuffer.allocateDirect(BLOCK + 5);
                in.readFully(BLOCK - 3, at);
                assertThat(bytes(at)).isEqualTo(Arrays.copyOfRange(data, BLOCK - 3, 2 * BLOCK + 2));
            }
            assertThat(got.toByteArray()).isEqualTo(data);
            assertThat(local.data().shortCircuitBytes()).isGreaterThanOrEqualTo(data.length);
            assertThat(local.data().landedBytes()).isPositive();
        }
    }

    @Test
    void anInterruptedReadIntoADirectBufferLeavesTheStreamUsable() throws IOException {
        try (TarnInputStream in = client.open("/landing/file")) {
            ByteBuffer dst = ByteBuffer.allocateDirect(2 * BLOCK);
            Thread.currentThread().interrupt();
            int n;
            try {
                n = in.read(dst);
            } catch (java.io.InterruptedIOException e) {
                n = 0; // nothing was read: the wait for the first chunk was interrupted
            }
            Thread.interrupted();
            assertThat(in.position()).isEqualTo(n);
            assertThat(bytes(dst)).isEqualTo(Arrays.copyOf(data, n));
            dst.clear();
            ByteBuffer rest = ByteBuffer.allocateDirect(data.length - n);
            while (rest.hasRemaining() && in.read(rest) >= 0) {
                // reads until full
            }
            assertThat(bytes(rest)).isEqualTo(Arrays.copyOfRange(data, n, data.length));
        } finally {
            Thread.interrupted();
        }
    }
}
