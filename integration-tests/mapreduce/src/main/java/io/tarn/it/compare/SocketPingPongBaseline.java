package io.tarn.it.compare;

import org.HdrHistogram.Histogram;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Baseline (b): the round-trip floor of one call in flight. A plain blocking {@code java.net.Socket}
 * ping-pong over loopback, TCP_NODELAY, {@link NettyEchoBaseline#MESSAGE_BYTES} each way: the client
 * writes a message and reads the echo, back to back; a server thread echoes.
 */
final class SocketPingPongBaseline {
    private SocketPingPongBaseline() {
    }

    static LoadResult run(double warmupSeconds, double seconds) throws IOException, InterruptedException {
        int size = NettyEchoBaseline.MESSAGE_BYTES;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread echo = new Thread(() -> echo(server, size), "compare-ping-pong-server");
            echo.setDaemon(true);
            echo.start();
            Histogram latencies = new Histogram(3);
            LoadDriver.Window window = new LoadDriver.Window(warmupSeconds, seconds);
            try (Socket s = new Socket(server.getInetAddress(), server.getLocalPort())) {
                s.setTcpNoDelay(true);
                OutputStream out = s.getOutputStream();
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] message = new byte[size];
                while (true) {
                    long start = System.nanoTime();
                    if (start >= window.end) {
                        break;
                    }
                    out.write(message);
                    in.readFully(message);
                    long end = System.nanoTime();
                    if (window.measures(start, end)) {
                        latencies.recordValue(end - start);
                    }
                }
            }
            echo.join(10_000);
            return window.result(latencies.getTotalCount(), latencies);
        }
    }

    private static void echo(ServerSocket server, int size) {
        try (Socket s = server.accept()) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] message = new byte[size];
            while (in.readNBytes(message, 0, size) == size) {
                out.write(message);
            }
        } catch (IOException e) {
            // the client closed mid-message: the run is over either way
        }
    }
}
