package io.tarn.client;

import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The output and input streams across chunk and block boundaries, with small blocks (64 KiB). */
class StreamsTest {
    static final int BLOCK = 64 << 10;
    static MiniCluster cluster;
    static TarnClient client;
    /** Same settings, tarn.client.shortcircuit = off: the data path over TCP. */
    static TarnClient tcp;

    @BeforeAll
    static void start() throws IOException {
        cluster = MiniCluster.builder().datanodes(2)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.CLIENT_IO_CHUNK, 16L << 10)
                .set(TarnKeys.CLIENT_READAHEAD, 48L << 10)
                .set(TarnKeys.CLIENT_WRITE_BEHIND, 32L << 10)
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

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Written by one data path, read back by both (short-circuit and TCP) and by the writer's own. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100, BLOCK - 1, BLOCK, BLOCK + 1, 16 << 10, (16 << 10) + 7, 5 * BLOCK + 12345})
    void roundTripOfAwkwardSizes(int size) throws IOException {
        byte[] data = random(size, size);
        for (TarnClient writer : new TarnClient[] {client, tcp}) {
            String path = "/sizes/" + size;
            try (TarnOutputStream out = writer.create(path, CreateOptions.OVERWRITE)) {
                out.write(data);
            }
            assertThat(client.getStatus(path).size()).isEqualTo(size);
            for (TarnClient reader : new TarnClient[] {client, tcp}) {
                try (TarnInputStream in = reader.open(path)) {
                    assertThat(in.readAllBytes()).isEqualTo(data);
                    assertThat(in.read()).isEqualTo(-1);
                }
            }
        }
    }

    @Test
    void byteAtATimeAndMixedWriteCalls() throws IOException {
        byte[] data = random(3 * BLOCK + 5, 7);
        try (TarnOutputStream out = client.create("/mixed", CreateOptions.OVERWRITE)) {
            int i = 0;
            while (i < data.length) {
                int kind = i % 3;
                if (kind == 0) {
                    out.write(data[i]);
                    i++;
                } else if (kind == 1) {
                    int n = Math.min(1000, data.length - i);
                    out.write(data, i, n);
                    i += n;
                } else {
                    int n = Math.min(70_000, data.length - i);
                    out.write(ByteBuffer.wrap(data, i, n));
                    i += n;
                }
            }
        }
        try (TarnInputStream in = client.open("/mixed")) {
            byte[] back = new byte[data.length];
            int at = 0;
            int step = 1;
            while (at < back.length) {
                if (step % 5 == 0) {
                    back[at++] = (byte) in.read();
                } else {
                    int n = in.read(back, at, Math.min(step * 777, back.length - at));
                    assertThat(n).isPositive();
                    at += n;
                }
                step++;
            }
            assertThat(back).isEqualTo(data);
        }
    }

    @Test
    void positionalReadsAndSeeks() throws IOException {
        byte[] data = random(4 * BLOCK + 100, 11);
        try (TarnOutputStream out = client.create("/pread", CreateOptions.OVERWRITE)) {
            out.write(data);
        }
        Random r = new Random(3);
        try (TarnInputStream in = client.open("/pread")) {
            for (int i = 0; i < 200; i++) {
                int pos = r.nextInt(data.length);
                int len = Math.min(r.nextInt(3 * BLOCK), data.length - pos);
                byte[] buf = new byte[len];
                in.readFully(pos, buf, 0, len);
                assertThat(buf).isEqualTo(Arrays.copyOfRange(data, pos, pos + len));
            }
            assertThat(in.position()).isZero();
            for (int i = 0; i < 100; i++) {
                int pos = r.nextInt(data.length);
                in.seek(pos);
                int len = Math.min(r.nextInt(40_000) + 1, data.length - pos);
                byte[] buf = in.readNBytes(len);
                assertThat(buf).isEqualTo(Arrays.copyOfRange(data, pos, pos + len));
                assertThat(in.position()).isEqualTo(pos + len);
            }
            byte[] tail = new byte[10];
            assertThat(in.read(data.length - 4, tail, 0, 10)).isEqualTo(4);
            assertThat(in.read(data.length, tail, 0, 10)).isEqualTo(-1);
            assertThatThrownBy(() -> in.seek(data.length + 1)).isInstanceOf(EOFException.class);
            assertThatThrownBy(() -> in.seek(-1)).isInstanceOf(EOFException.class);
            assertThatThrownBy(() -> in.readFully(data.length - 2, new byte[5], 0, 5)).isInstanceOf(EOFException.class);
        }
    }

    @Test
    void asynchronousReadsManyInFlight() throws Exception {
        byte[] data = random(5 * BLOCK + 77, 31);
        try (TarnOutputStream out = client.create("/async-read", CreateOptions.OVERWRITE)) {
            out.write(data);
        }
        try (TarnInputStream in = client.open("/async-read")) {
            int piece = 40_000;
            java.util.List<java.util.concurrent.CompletableFuture<Integer>> reads = new java.util.ArrayList<>();
            java.util.List<ByteBuffer> buffers = new java.util.ArrayList<>();
            for (int pos = 0; pos < data.length; pos += piece) {
                ByteBuffer buf = ByteBuffer.allocate(piece + 10);
                buf.position(10);
                buffers.add(buf);
                reads.add(in.readAsync(pos, buf));
            }
            for (int i = 0; i < reads.size(); i++) {
                int pos = i * piece;
                int expected = Math.min(piece, data.length - pos);
                assertThat(reads.get(i).get()).isEqualTo(expected);
                ByteBuffer buf = buffers.get(i);
                assertThat(buf.position()).isEqualTo(10 + expected);
                byte[] got = new byte[expected];
                buf.flip().position(10);
                buf.get(got);
                assertThat(got).isEqualTo(Arrays.copyOfRange(data, pos, pos + expected));
            }
            assertThat(in.position()).isZero();
            assertThat(in.readAsync(data.length, ByteBuffer.allocate(4)).get()).isEqualTo(-1);
            assertThatThrownBy(() -> in.readAsync(-1, ByteBuffer.allocate(4)).join()).cause()
                    .isInstanceOf(EOFException.class);
        }
    }

    @Test
    void concurrentPositionalReadsOnOneStream() throws Exception {
        byte[] data = random(6 * BLOCK, 21);
        try (TarnOutputStream out = client.create("/concurrent", CreateOptions.OVERWRITE)) {
            out.write(data);
        }
        try (TarnInputStream in = client.open("/concurrent")) {
            Thread[] threads = new Thread[4];
            Throwable[] failure = new Throwable[1];
            for (int t = 0; t < threads.length; t++) {
                long seed = t;
                threads[t] = new Thread(() -> {
                    Random r = new Random(seed);
                    try {
                        for (int i = 0; i < 50; i++) {
                            int pos = r.nextInt(data.length - 1000);
                            byte[] buf = new byte[1000];
                            in.readFully(pos, buf, 0, 1000);
                            if (!Arrays.equals(buf, Arrays.copyOfRange(data, pos, pos + 1000))) {
                                throw new AssertionError("wrong bytes at " + pos);
                            }
                        }
                    } catch (Throwable e) {
                        failure[0] = e;
                    }
                });
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failure[0]).isNull();
        }
    }

    @Test
    void hsyncPublishesTheLengthBeforeClose() throws IOException {
        byte[] data = random(2 * BLOCK + 300, 5);
        TarnOutputStream out = client.create("/flushed", CreateOptions.OVERWRITE);
        out.write(data);
        out.flush();
        out.hflush();
        assertThat(out.position()).isEqualTo(data.length);
        out.hsync();
        assertThat(client.getStatus("/flushed").size()).isEqualTo(data.length);
        assertThat(client.getStatus("/flushed").underConstruction()).isTrue();
        try (TarnInputStream reader = client.open("/flushed")) {
            assertThat(reader.readAllBytes()).isEqualTo(data);
        }
        out.write(data, 0, 10);
        out.close();
        assertThat(client.getStatus("/flushed").size()).isEqualTo(data.length + 10);
        try (TarnInputStream in = client.open("/flushed")) {
            byte[] all = in.readAllBytes();
            assertThat(Arrays.copyOf(all, data.length)).isEqualTo(data);
            assertThat(Arrays.copyOfRange(all, data.length, all.length)).isEqualTo(Arrays.copyOf(data, 10));
        }
    }

    @Test
    void writeAsyncCompletesWhenStored() throws IOException {
        TarnOutputStream out = client.create("/wasync", CreateOptions.OVERWRITE);
        byte[] data = random(100_000, 9);
        out.writeAsync(ByteBuffer.wrap(data)).join();
        out.close();
        try (TarnInputStream in = client.open("/wasync")) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
    }

    @Test
    void closedStreamsRejectIo() throws IOException {
        TarnOutputStream out = client.create("/closed", CreateOptions.OVERWRITE);
        out.write(1);
        out.close();
        out.close(); // idempotent
        assertThatThrownBy(() -> out.write(2)).isInstanceOf(TarnException.class)
                .matches(e -> ((TarnException) e).code() == ErrorCode.FILE_CLOSED);
        TarnInputStream in = client.open("/closed");
        in.close();
        assertThatThrownBy(in::read).isInstanceOf(TarnException.class);
    }

    @Test
    void fileEndingOnBlockBoundaryKeepsNoExtraBlock() throws IOException {
        long freeBefore = freeBlocks();
        try (TarnOutputStream out = client.create("/exact", CreateOptions.OVERWRITE)) {
            out.write(random(2 * BLOCK, 1));
        }
        assertThat(freeBefore - freeBlocks()).isEqualTo(2);
        client.delete("/exact", false);
        assertThat(freeBlocks()).isEqualTo(freeBefore);
    }

    private static long freeBlocks() throws IOException {
        return client.clusterStatus().datanodes().stream().mapToLong(d -> d.freeBlocks()).sum();
    }

    @Test
    void blockingReadInsideAFutureCallbackFailsFastInsteadOfHanging() throws Exception {
        byte[] data = random(BLOCK, 3);
        try (TarnOutputStream out = client.create("/callback", CreateOptions.OVERWRITE)) {
            out.write(data);
        }
        try (TarnInputStream in = client.open("/callback")) {
            java.util.concurrent.atomic.AtomicReference<String> thread =
                    new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
            // The callback runs on the transport thread that reads the getStatus answer.
            java.util.concurrent.CompletableFuture<Integer> r = gate
                    .thenCompose(v -> client.getStatusAsync("/callback"))
                    .thenApply(st -> {
                        thread.set(Thread.currentThread().getName());
                        try {
                            return in.read(10, new byte[10], 0, 10);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
            gate.complete(null);
            if (thread.get() == null || thread.get().startsWith("tarn-tcp")) {
                assertThatThrownBy(() -> r.get(10, java.util.concurrent.TimeUnit.SECONDS))
                        .cause().isInstanceOf(IllegalStateException.class).hasMessageContaining("I/O thread");
            }
            byte[] b = new byte[10];
            assertThat(in.read(10, b, 0, 10)).isEqualTo(10);
            assertThat(b).isEqualTo(Arrays.copyOfRange(data, 10, 20));
        }
    }

    @Test
    void interruptedReadReturnsTheBytesItAlreadyHadAndTheStreamGoesOn() throws IOException {
        byte[] data = random(3 * BLOCK, 11);
        try (TarnOutputStream out = client.create("/interrupted", CreateOptions.OVERWRITE)) {
            out.write(data);
        }
        try (TarnInputStream in = client.open("/interrupted")) {
            assertThat(in.read(new byte[100])).isEqualTo(100);
            byte[] b = new byte[2 * BLOCK]; // more than the read-ahead: the read must wait at some point
            Thread.currentThread().interrupt();
            int n = in.read(b, 0, b.length);
            // What the stream already held is returned (and counted), the wait for more was interrupted.
            assertThat(n).isPositive();
            assertThat(in.position()).isEqualTo(100 + n);
            assertThat(Arrays.copyOf(b, n)).isEqualTo(Arrays.copyOfRange(data, 100, 100 + n));
            Thread.interrupted(); // whether the read above had to wait (and kept the flag) depends on timing
            assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 100 + n, data.length));
            in.readFully(7, b, 0, b.length);
            assertThat(b).isEqualTo(Arrays.copyOfRange(data, 7, 7 + b.length));
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void clientOnASharedTransportClosesItsNamenodeConnection() throws Exception {
        int port = cluster.namenodeAddress().getPort();
        long before = establishedTo(port);
        try (io.tarn.rpc.Transport shared = io.tarn.rpc.Transports.create(cluster.config())) {
            TarnClient c = TarnClient.connect(cluster.config(), shared);
            c.getStatus("/");
            assertThat(establishedTo(port)).isEqualTo(before + 1);
            c.close();
            long after = Eventually.value(Duration.ofSeconds(5), "the closed client's connection to the namenode gone ("
                    + before + " established before it)", () -> establishedTo(port), n -> n <= before);
            assertThat(after).isEqualTo(before);
        }
    }

    /** Established client-side TCP connections of this host to {@code port} (from /proc/net/tcp and tcp6). */
    private static long establishedTo(int port) {
        String hexPort = String.format(":%04X", port);
        long n = 0;
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            java.nio.file.Path file = java.nio.file.Path.of(table);
            if (!java.nio.file.Files.exists(file)) {
                continue;
            }
            try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(file)) {
                n += lines.skip(1).map(String::trim).map(l -> l.split("\\s+"))
                        .filter(f -> f[2].endsWith(hexPort) && f[3].equals("01")).count();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return n;
    }
}
