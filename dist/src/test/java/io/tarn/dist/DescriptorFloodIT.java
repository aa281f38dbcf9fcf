package io.tarn.dist;

import io.tarn.dist.LocalCluster.Outcome;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A flood of idle connections against a real namenode process whose descriptors are limited, as an
 * outside tester found it on a main without connection limits: with {@code ulimit -n} at 1,024,
 * 1,100 idle connections made a normal client hang for 18 s. Now the namenode keeps at most nine
 * tenths of its limit open, a connection that never authenticated yields its place to a new one, and
 * the normal client is served at once; the flood's connections are closed after
 * {@code tarn.security.auth.timeout}, with few log lines for all of them.
 */
class DescriptorFloodIT {
    private static final int LIMIT = 1_024;
    private static final int FLOOD = 1_100;

    @Test
    void aNamenodeLimitedTo1024DescriptorsServesANormalClientThrough1100IdleConnections() throws Exception {
        assumeTrue(onPath("prlimit"), "prlimit (util-linux) is not installed: cannot start a namenode under a "
                + "descriptor limit");
        long own = openFileLimit(Path.of("/proc/self/limits"));
        assumeTrue(own < 0 || own >= FLOOD + 300, "this test process may open only " + own + " files (ulimit -n); "
                + "it needs " + (FLOOD + 300) + " for the flood");

        try (LocalCluster c = LocalCluster.start(LocalCluster.home(), 1,
                Map.of("tarn.security.auth.timeout", "4000"))) {
            // The namenode again, under a limit of 1,024 descriptors.
            assertThat(c.tarn("stop", "namenode", "0").exit()).isZero();
            Outcome start = c.tarnUnder(List.of("prlimit", "--nofile=" + LIMIT + ":" + LIMIT), "start", "namenode",
                    "0");
            assertThat(start.exit()).as(start.output()).isZero();
            long pid = Long.parseLong(Files.readString(c.runDir().resolve("namenode-0.pid")).trim());
            assertThat(openFileLimit(Path.of("/proc", Long.toString(pid), "limits"))).isEqualTo(LIMIT);

            long before = timed(c, "/before"); // a normal client: bin/tarn fs in its own JVM

            List<Socket> flood = new ArrayList<>();
            try {
                InetSocketAddress namenode = new InetSocketAddress("127.0.0.1", c.uri().getPort());
                for (int i = 0; i < FLOOD; i++) {
                    Socket s = new Socket();
                    s.connect(namenode, 5_000); // and then nothing: never authenticates
                    flood.add(s);
                }
                long during = timed(c, "/during");
                assertThat(during).as("milliseconds a client took during the flood (18 s before connection "
                        + "limits) against %d ms before it", before).isLessThan(before + 1_000);
                Outcome status = c.tarn("status", "--interval", "0");
                assertThat(status.exit()).as(status.output()).isZero();
                assertThat(status.output()).contains("datanodes: 1 (1 alive)");

                // Every connection of the flood is closed: the oldest to make room, the rest after the timeout.
                int closed = 0;
                for (Socket s : flood) {
                    s.setSoTimeout(15_000);
                    if (endsWithin(s.getInputStream())) {
                        closed++;
                    }
                }
                assertThat(closed).isEqualTo(FLOOD);
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isTrue();
            String log = Files.readString(c.runDir().resolve("logs").resolve("namenode-0.log"));
            long lines = log.lines().filter(l -> l.contains(" WARN ")).count();
            assertThat(lines).as("WARN lines for %d connections that never authenticated (rate-limited):%n%s", FLOOD,
                    log).isLessThan(100);
            Outcome ls = c.tarn("fs", "-ls", "/");
            assertThat(ls.exit()).as(ls.output()).isZero();
            assertThat(ls.output()).contains("/before").contains("/during");
        }
    }

    /** Milliseconds {@code tarn fs -mkdir path} took, which must succeed. */
    private static long timed(LocalCluster c, String path) throws IOException {
        long started = System.nanoTime();
        Outcome mkdir = c.tarn("fs", "-mkdir", path);
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertThat(mkdir.exit()).as(mkdir.output()).isZero();
        return millis;
    }

    /** Reads until the server ends the stream; true when it did before the socket's timeout. */
    private static boolean endsWithin(InputStream in) throws IOException {
        byte[] buf = new byte[512];
        try {
            int n;
            do {
                n = in.read(buf); // the server's last word (UNAUTHENTICATED, and why), then the end
            } while (n >= 0);
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }

    /** The soft limit on open files in a /proc/PID/limits file, or -1 when unlimited. */
    private static long openFileLimit(Path limits) throws IOException {
        Matcher m = Pattern.compile("Max open files\\s+(\\S+)").matcher(Files.readString(limits));
        assertThat(m.find()).as(limits.toString()).isTrue();
        return "unlimited".equals(m.group(1)) ? -1 : Long.parseLong(m.group(1));
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
