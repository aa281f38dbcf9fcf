package io.tarn.it.compare;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Baseline (c): what one loopback TCP connection carries. A client writes {@code sizeMb} MiB in
 * 1 MiB writes from a direct buffer; a receiver thread reads them into a 1 MiB direct buffer and
 * drops them, then answers one byte. The rate is the size over the time from the first write to
 * that answer. Like iperf3 with 1 MiB writes, without iperf3.
 *
 * <p>Its variant {@link #runIntoMemory} keeps what it receives, as a DRAM tier must: the receiver
 * reads each MiB into the next MiB of a file of the stream's size mapped from {@code /dev/shm}
 * (where Tarn's datanode keeps its regions in this runner), instead of into one buffer again and
 * again. The gap between the two is what storing the bytes in memory costs the receiving end,
 * before any file system work.
 */
final class TcpStreamBaseline {
    private TcpStreamBaseline() {
    }

    /**
     * Bytes per second of a stream of {@code bytes}, the median of
     * {@link CompareSettings#SEQUENTIAL_PASSES} streams, after an unmeasured stream of
     * {@code warmupBytes}.
     */
    static double run(long bytes, long warmupBytes) throws IOException, InterruptedException {
        return run(bytes, warmupBytes, null);
    }

    /**
     * Like {@link #run(long, long)}, the receiver reading into a mapped file of {@code bytes} (at
     * most 2 GiB, reused from its start past that) created in {@code dir} and removed afterwards.
     */
    static double runIntoMemory(long bytes, long warmupBytes, Path dir) throws IOException, InterruptedException {
        Path file = Files.createTempFile(dir, "tarn-compare-stream-", ".mem");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = Math.min(bytes,
                    Integer.MAX_VALUE / CompareSettings.IO_BUFFER * (long) CompareSettings.IO_BUFFER);
            MappedByteBuffer memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            memory.load(); // touched once, as a datanode's regions are at its start
            return run(bytes, warmupBytes, memory);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static double run(long bytes, long warmupBytes, ByteBuffer memory)
            throws IOException, InterruptedException {
        if (warmupBytes > 0) {
            stream(warmupBytes, memory);
        }
        double[] passes = new double[CompareSettings.SEQUENTIAL_PASSES];
        for (int i = 0; i < passes.length; i++) {
            passes[i] = stream(bytes, memory);
        }
        return SequentialData.median(passes);
    }

    /** @param memory where the receiver keeps the bytes, window after window, or null to drop them */
    private static double stream(long bytes, ByteBuffer memory) throws IOException, InterruptedException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<Void> received = new CompletableFuture<>();
            Thread receiver = new Thread(() -> receive(server, bytes, memory, received), "compare-stream-receiver");
            receiver.setDaemon(true);
            receiver.start();
            ByteBuffer data = SequentialData.directBuffer();
            try (SocketChannel ch = SocketChannel.open(server.getLocalAddress())) {
                long start = System.nanoTime();
                for (long sent = 0; sent < bytes; ) {
                    ByteBuffer b = data.duplicate();
                    b.limit((int) Math.min(b.capacity(), bytes - sent));
                    while (b.hasRemaining()) {
                        sent += ch.write(b);
                    }
                }
                ByteBuffer ack = ByteBuffer.allocate(1);
                while (ack.hasRemaining()) {
                    if (ch.read(ack) < 0) {
                        break;
                    }
                }
                double rate = SequentialData.rate(bytes, start);
                received.get();
                return rate;
            } catch (ExecutionException e) {
                LoadDriver.rethrow(e.getCause());
                throw new AssertionError(e);
            }
        }
    }

    private static void receive(ServerSocketChannel server, long bytes, ByteBuffer memory,
            CompletableFuture<Void> received) {
        try (SocketChannel ch = server.accept()) {
            ByteBuffer drop = ByteBuffer.allocateDirect(CompareSettings.IO_BUFFER);
            int windows = memory == null ? 0 : memory.capacity() / CompareSettings.IO_BUFFER;
            ByteBuffer window = null;
            long windowIndex = 0;
            long total = 0;
            while (total < bytes) {
                ByteBuffer into;
                if (memory == null) {
                    into = drop.clear();
                } else {
                    if (window == null || !window.hasRemaining()) {
                        window = memory.slice((int) (windowIndex++ % windows) * CompareSettings.IO_BUFFER,
                                CompareSettings.IO_BUFFER);
                    }
                    into = window;
                }
                int n = ch.read(into);
                if (n < 0) {
                    throw new IOException("stream ended after " + total + " of " + bytes + " bytes");
                }
                total += n;
            }
            ch.write(ByteBuffer.wrap(new byte[] {1}));
            received.complete(null);
        } catch (IOException | RuntimeException e) {
            received.completeExceptionally(e);
        }
    }
}
