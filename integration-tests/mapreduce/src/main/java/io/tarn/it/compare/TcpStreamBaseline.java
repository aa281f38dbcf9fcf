package io.tarn.it.compare;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Baseline (c): what one loopback TCP connection carries. A client writes {@code sizeMb} MiB in
 * 1 MiB writes from a direct buffer; a receiver thread reads them into a 1 MiB direct buffer and
 * drops them, then answers one byte. The rate is the size over the time from the first write to
 * that answer. Like iperf3 with 1 MiB writes, without iperf3.
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
        if (warmupBytes > 0) {
            stream(warmupBytes);
        }
        double[] passes = new double[CompareSettings.SEQUENTIAL_PASSES];
        for (int i = 0; i < passes.length; i++) {
            passes[i] = stream(bytes);
        }
        return SequentialData.median(passes);
    }

    private static double stream(long bytes) throws IOException, InterruptedException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<Void> received = new CompletableFuture<>();
            Thread receiver = new Thread(() -> receive(server, bytes, received), "compare-stream-receiver");
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

    private static void receive(ServerSocketChannel server, long bytes, CompletableFuture<Void> received) {
        try (SocketChannel ch = server.accept()) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(CompareSettings.IO_BUFFER);
            long total = 0;
            while (total < bytes) {
                int n = ch.read(buffer.clear());
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
