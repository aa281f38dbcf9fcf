package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.epoll.Epoll;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A server transport whose I/O threads poll after their last work ({@code tarn.namenode.poll})
 * answers a run of back-to-back calls without its thread ever going to sleep; without polling it
 * sleeps between every two calls. Counted, not timed: the kernel's count of the thread's voluntary
 * context switches (it blocked), read from /proc, so Linux with native epoll only.
 */
class PollingSelectStrategyTest {
    private static final int CALLS = 300;

    @Test
    void aPollingServerThreadDoesNotSleepBetweenCallsThatKeepComing() throws Exception {
        assumeTrue(Epoll.isAvailable() && Files.isDirectory(Path.of("/proc/self/task")), "Linux with epoll");
        long polling = sleepsOfTheServerThread(TimeUnit.MILLISECONDS.toNanos(50));
        long sleeping = sleepsOfTheServerThread(0);
        assertThat(sleeping).as("without polling: about one sleep per call").isGreaterThan(CALLS / 2);
        assertThat(polling).as("polling 50 ms after each call").isLessThan(CALLS / 4);
    }

    /** Voluntary context switches of the server's I/O thread during {@value #CALLS} calls, one after the other. */
    private static long sleepsOfTheServerThread(long pollNanos) throws Exception {
        TarnConfig config = TarnConfig.builder().set("tarn.rpc.io.threads", "1").build();
        AtomicReference<String> serverThread = new AtomicReference<>();
        try (TcpTransport servers = new TcpTransport(config, pollNanos);
             TcpTransport clients = new TcpTransport(config)) {
            RpcServer server = servers.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), request -> {
                serverThread.set(Thread.currentThread().getName());
                ByteBuf response = request.response();
                Wire.writeString(response, "ok");
                request.send(response);
            });
            RpcClient client = clients.connect(server.localAddress());
            call(client);
            long before = voluntarySwitches(serverThread.get());
            for (int i = 0; i < CALLS; i++) {
                call(client);
            }
            return voluntarySwitches(serverThread.get()) - before;
        }
    }

    private static void call(RpcClient client) throws Exception {
        assertThat(client.call(Opcode.GET_FILE, b -> Wire.writeString(b, "/"), Wire::readString)
                .get(10, TimeUnit.SECONDS)).isEqualTo("ok");
    }

    /** The kernel's count for the thread of this JVM named {@code name} (as far as the kernel keeps names). */
    private static long voluntarySwitches(String name) throws IOException {
        String comm = name.length() > 15 ? name.substring(0, 15) : name;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).trim().equals(comm)) {
                        for (String line : Files.readAllLines(task.resolve("status"))) {
                            if (line.startsWith("voluntary_ctxt_switches:")) {
                                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                            }
                        }
                    }
                } catch (NoSuchFileException e) {
                    // That thread ended between the listing and the read (another test's pool winding down).
                    continue;
                }
            }
        }
        throw new IllegalStateException("no thread named " + name);
    }
}
