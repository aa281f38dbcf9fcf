package io.tarn.tools.chaos.net;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A private network of namespaces on this machine, made with iproute2: one Linux bridge, and per
 * host a network namespace joined to the bridge by a veth pair, with an address from 192.0.2.0/24
 * (TEST-NET-1). This JVM reaches the hosts through an address of its own on the bridge. A host is
 * partitioned by setting its veth's bridge end down: nothing passes in either direction until it is
 * set up again. Traffic never leaves the machine.
 *
 * <p>The root namespace gets only /32 routes, one per host, and addresses no interface, route or
 * neighbour of this machine already uses, so that a real network on 192.0.2.0/24 (as on some test
 * machines) keeps working.
 *
 * <p>Every name carries this run's tag (the JVM's pid and a counter): namespaces are
 * {@code tarnchaos-<pid>-<n>-<host>}, links {@code tc<pid base 36><n><role><index>} with the alias
 * {@code tarn-chaos <pid>}. {@link #close} removes all of them, as does a JVM shutdown hook when the
 * lab is not closed; {@link #sweep} removes what labs of processes no longer running left behind
 * (killed with SIGKILL, say), killing the processes still running in their namespaces. Needs root
 * (CAP_NET_ADMIN).
 */
public final class NetworkLab implements AutoCloseable {
    /** Prefix of every namespace a lab makes. */
    static final String NAMESPACE_PREFIX = "tarnchaos-";
    /** Prefix of the alias of every link a lab makes. */
    static final String ALIAS_PREFIX = "tarn-chaos ";
    private static final Pattern NAMESPACE = Pattern.compile("^" + NAMESPACE_PREFIX + "(\\d+)-.*");
    private static final Pattern LINK = Pattern.compile("^\\d+: ([^:@ ]+)[:@].*\\balias " + ALIAS_PREFIX + "(\\d+)");
    private static final AtomicInteger LABS = new AtomicInteger();
    private static final Object ADDRESSES = new Object();
    private static final String NET = "192.0.2.";

    private final long pid = ProcessHandle.current().pid();
    private final String tag;
    private final String namespacePrefix;
    private final String bridge;
    private final String selfAddress;
    private final Map<String, Host> hosts = new LinkedHashMap<>();
    private final Set<String> taken = new HashSet<>();
    private final Thread hook;
    private boolean closed;

    private NetworkLab() throws IOException {
        int n = LABS.getAndIncrement();
        this.tag = "tc" + Long.toString(pid, 36) + Integer.toString(n % 36, 36);
        this.namespacePrefix = NAMESPACE_PREFIX + pid + "-" + n + "-";
        this.bridge = tag + "b";
        this.hook = new Thread(this::closeQuietly, "tarn-chaos-network-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            Ip.run("link", "add", bridge, "type", "bridge");
            Ip.run("link", "set", "dev", bridge, "alias", ALIAS_PREFIX + pid);
            this.selfAddress = claimAddress();
            Ip.run("addr", "add", selfAddress + "/32", "dev", bridge);
            Ip.run("link", "set", bridge, "up");
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw e;
        }
    }

    /** Sweeps what dead runs left, then makes an empty lab: a bridge with this JVM's address on it. */
    public static NetworkLab create() throws IOException {
        sweep();
        return new NetworkLab();
    }

    /**
     * Why labs cannot be made here (not root, no {@code ip}, namespaces refused), or null when they can:
     * it makes and removes a namespace to find out.
     */
    public static String unavailableReason() {
        String probe = NAMESPACE_PREFIX + ProcessHandle.current().pid() + "-probe";
        try {
            Ip.Result add = Ip.tryRun("netns", "add", probe);
            if (add.exit() != 0) {
                return "cannot create a network namespace (ip netns add: " + add.output().strip()
                        + "); run as root on Linux with iproute2";
            }
            Ip.tryRun("netns", "delete", probe);
            return null;
        } catch (IOException e) {
            return "cannot run ip (" + e.getMessage() + "); install iproute2 and run as root";
        }
    }

    /**
     * Removes the namespaces and links of labs whose process no longer runs; returns how many it removed.
     */
    public static int sweep() throws IOException {
        int removed = 0;
        for (String line : Ip.run("netns", "list").split("\n")) {
            String name = line.strip().split(" ")[0];
            Matcher m = NAMESPACE.matcher(name);
            if (m.matches() && !alive(Long.parseLong(m.group(1)))) {
                // Processes its run started there outlive the run when it was killed: kill them first.
                for (String pid : Ip.tryRun("netns", "pids", name).output().split("\\s+")) {
                    if (pid.matches("\\d+")) {
                        ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
                Ip.tryRun("netns", "delete", name);
                removed++;
            }
        }
        for (String line : Ip.run("-o", "link", "show").split("\n")) {
            Matcher m = LINK.matcher(line);
            if (m.find() && !alive(Long.parseLong(m.group(2)))) {
                Ip.tryRun("link", "delete", m.group(1));
                removed++;
            }
        }
        return removed;
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Adds a host named {@code name} (letters, digits and dashes) with a fresh address on the bridge. */
    public synchronized Host addHost(String name) throws IOException {
        if (closed) {
            throw new IllegalStateException("network lab " + tag + " is closed");
        }
        if (!name.matches("[A-Za-z0-9-]{1,20}") || hosts.containsKey(name)) {
            throw new IllegalArgumentException("bad or duplicate host name '" + name + "'");
        }
        int index = hosts.size();
        String namespace = namespacePrefix + name;
        String bridgeEnd = tag + "h" + index;
        String inner = tag + "n" + index;
        String address = claimAddress();
        Host host = new Host(name, namespace, address, bridgeEnd);
        hosts.put(name, host);
        Ip.run("netns", "add", namespace);
        Ip.run("link", "add", bridgeEnd, "type", "veth", "peer", "name", inner);
        Ip.run("link", "set", "dev", bridgeEnd, "alias", ALIAS_PREFIX + pid);
        Ip.run("link", "set", inner, "netns", namespace);
        Ip.run("-n", namespace, "link", "set", "lo", "up");
        Ip.run("-n", namespace, "addr", "add", address + "/24", "dev", inner);
        Ip.run("-n", namespace, "link", "set", inner, "up");
        Ip.run("link", "set", bridgeEnd, "master", bridge);
        Ip.run("link", "set", bridgeEnd, "up");
        Ip.run("route", "add", address + "/32", "dev", bridge, "src", selfAddress);
        return host;
    }

    /** Cuts {@code host} off: its veth's bridge end goes down, so no packet reaches or leaves it. */
    public void isolate(Host host) throws IOException {
        Ip.run("link", "set", host.bridgeEnd(), "down");
    }

    /** Reconnects an isolated host. */
    public void heal(Host host) throws IOException {
        Ip.run("link", "set", host.bridgeEnd(), "up");
    }

    /** This JVM's address on the bridge: what the hosts see its connections come from. */
    public String selfAddress() {
        return selfAddress;
    }

    /** The hosts added so far, in order. */
    public synchronized List<Host> hosts() {
        return new ArrayList<>(hosts.values());
    }

    /** The tag in this lab's link names. */
    public String tag() {
        return tag;
    }

    /** The prefix of this lab's namespaces. */
    public String namespacePrefix() {
        return namespacePrefix;
    }

    /**
     * An address of 192.0.2.0/24 that no interface, route or neighbour of this machine uses yet, from
     * the top down, so as to stay clear of a gateway at .1.
     */
    private String claimAddress() throws IOException {
        synchronized (ADDRESSES) {
            Set<String> used = new HashSet<>(taken);
            String seen = Ip.run("-o", "-4", "addr", "show") + Ip.run("-4", "route", "show", "table", "all")
                    + Ip.run("-4", "neigh", "show");
            Matcher m = Pattern.compile("192\\.0\\.2\\.(\\d+)").matcher(seen);
            while (m.find()) {
                used.add(NET + m.group(1));
            }
            for (int last = 250; last >= 10; last--) {
                String candidate = NET + last;
                if (!used.contains(candidate)) {
                    taken.add(candidate);
                    return candidate;
                }
            }
            throw new IOException("no free address left in 192.0.2.0/24 for network lab " + tag);
        }
    }

    /** Removes the namespaces (their veth pairs go with them) and the bridge; idempotent. */
    @Override
    public void close() throws IOException {
        List<String> failures = closeAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook is running or has run.
        }
        if (!failures.isEmpty()) {
            throw new IOException("network lab " + tag + ": could not remove " + String.join("; ", failures));
        }
    }

    private void closeQuietly() {
        closeAll();
    }

    private synchronized List<String> closeAll() {
        List<String> failures = new ArrayList<>();
        if (closed) {
            return failures;
        }
        closed = true;
        try {
            for (Host host : hosts.values()) {
                Ip.Result r = Ip.tryRun("netns", "delete", host.namespace());
                if (r.exit() != 0 && !r.output().contains("No such file")) {
                    failures.add(host.namespace() + ": " + r.output().strip());
                }
                Ip.Result v = Ip.tryRun("link", "delete", host.bridgeEnd());
                if (v.exit() != 0 && !v.output().contains("Cannot find device")) {
                    failures.add(host.bridgeEnd() + ": " + v.output().strip());
                }
            }
            Ip.Result b = Ip.tryRun("link", "delete", bridge);
            if (b.exit() != 0 && !b.output().contains("Cannot find device")) {
                failures.add(bridge + ": " + b.output().strip());
            }
        } catch (IOException e) {
            failures.add(e.getMessage());
        }
        return failures;
    }
}
