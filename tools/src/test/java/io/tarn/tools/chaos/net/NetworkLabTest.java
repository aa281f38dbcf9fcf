package io.tarn.tools.chaos.net;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real namespaces, veth pairs and a bridge: TCP between two namespaces and from this JVM works, a
 * partitioned host neither accepts connections nor passes data until healed, and closing the lab
 * leaves no namespace or link of it behind. Skipped, saying why, where namespaces cannot be made
 * (not root, no iproute2).
 */
class NetworkLabTest {
    private static final int PORT = 7777;

    @BeforeAll
    static void needsNamespaces() {
        String reason = NetworkLab.unavailableReason();
        assumeTrue(reason == null, () -> "network namespace tests skipped: " + reason);
    }

    @Test
    void partitionStopsTrafficUntilHealedAndCloseRemovesEverything() throws Exception {
        NetworkLab lab = NetworkLab.create();
        List<Process> servers = new ArrayList<>();
        String prefix = lab.namespacePrefix();
        String tag = lab.tag();
        try {
            Host a = lab.addHost("a");
            Host b = lab.addHost("b");
            assertThat(a.address()).isNotEqualTo(b.address()).startsWith("192.0.2.");
            servers.add(startEcho(a));

            // Namespace to namespace, then this JVM to a namespace.
            assertThat(echoFrom(b, a)).isEqualTo("hello");
            try (Socket s = connect(a, 2_000)) {
                assertThat(roundTrip(s, "one", 5_000)).isEqualTo("one");

                lab.isolate(a);
                assertThat(echoFrom(b, a)).as("b reaches a while a is isolated").isNull();
                assertThatThrownBy(() -> connect(a, 1_000)).isInstanceOf(IOException.class);
                assertThatThrownBy(() -> roundTrip(s, "two", 1_000)).isInstanceOf(SocketTimeoutException.class);

                lab.heal(a);
                // The line sent while isolated arrives with TCP's next retransmission.
                assertThat(readLine(s, 15_000)).isEqualTo("two");
                assertThat(roundTrip(s, "three", 5_000)).isEqualTo("three");
            }
            assertThat(echoFrom(b, a)).isEqualTo("hello");
            assertThat(Ip.run("netns", "list")).contains(prefix + "a", prefix + "b");
        } finally {
            servers.forEach(Process::destroyForcibly);
            lab.close();
        }
        assertThat(Ip.run("netns", "list")).doesNotContain(prefix);
        assertThat(Ip.run("-o", "link", "show")).doesNotContain(tag);
        assertThat(Ip.run("-4", "route", "show")).doesNotContain(tag);
    }

    @Test
    void sweepRemovesWhatADeadRunLeftAndKillsItsProcesses() throws Exception {
        // A namespace and a link named as a lab of a process that no longer runs would name them.
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor(10, TimeUnit.SECONDS);
        long pid = gone.pid();
        String namespace = NetworkLab.NAMESPACE_PREFIX + pid + "-0-x";
        String link = "tc" + Long.toString(pid, 36) + "0b";
        Ip.run("netns", "add", namespace);
        Ip.run("link", "add", link, "type", "bridge");
        Ip.run("link", "set", "dev", link, "alias", NetworkLab.ALIAS_PREFIX + pid);
        // A daemon the dead run started in its namespace, still running.
        Process orphan = new ProcessBuilder("ip", "netns", "exec", namespace, "sleep", "300").start();
        try {
            assertThat(NetworkLab.sweep()).isGreaterThanOrEqualTo(2);
            assertThat(orphan.waitFor(10, TimeUnit.SECONDS)).as("the orphan was killed").isTrue();
            assertThat(Ip.run("netns", "list")).doesNotContain(namespace);
            assertThat(Ip.run("-o", "link", "show")).doesNotContain(link);
        } finally {
            orphan.destroyForcibly();
            Ip.tryRun("netns", "delete", namespace);
            Ip.tryRun("link", "delete", link);
        }
    }

    @Test
    void closedLabRefusesHostsAndClosesOnce() throws Exception {
        NetworkLab lab = NetworkLab.create();
        lab.close();
        lab.close();
        assertThatThrownBy(() -> lab.addHost("c")).isInstanceOf(IllegalStateException.class);
    }

    private static Process startEcho(Host host) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = host.command(List.of(java, "-cp", System.getProperty("java.class.path"),
                EchoServer.class.getName(), host.address(), Integer.toString(PORT)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String first = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        assertThat(first).as("echo server in %s", host.namespace()).isEqualTo("ready");
        return p;
    }

    /** What the echo server on {@code to} answers to "hello" sent from inside {@code from}; null if nothing. */
    private static String echoFrom(Host from, Host to) throws Exception {
        String script = "exec 3<>/dev/tcp/" + to.address() + "/" + PORT + " && echo hello >&3 && read -r line <&3"
                + " && echo \"$line\"";
        Process p = new ProcessBuilder(from.command(List.of("timeout", "3", "bash", "-c", script)))
                .redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor(10, TimeUnit.SECONDS);
        return p.exitValue() == 0 ? out : null;
    }

    private static Socket connect(Host host, int timeoutMs) throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host.address(), PORT), timeoutMs);
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static String roundTrip(Socket s, String line, int timeoutMs) throws IOException {
        s.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
        return readLine(s, timeoutMs);
    }

    /** One line, read byte by byte so that a timeout loses nothing buffered. */
    private static String readLine(Socket s, int timeoutMs) throws IOException {
        s.setSoTimeout(timeoutMs);
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = s.getInputStream().read()) != -1 && c != '\n') {
            line.append((char) c);
        }
        return line.toString();
    }
}
