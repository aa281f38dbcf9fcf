package io.tarn.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Tarn cluster on this host run by a distribution's own {@code bin/tarn start} and {@code stop}, as
 * an operator runs one: separate daemon processes, a configuration directory, run directory and
 * memory directory of its own, and a namenode on a free loopback port, so that it neither disturbs
 * nor depends on a cluster on the default ports.
 *
 * <p>It needs only the JDK: the integration tests use it from Hadoop's and Spark's class paths,
 * where Tarn itself is seen only through the shaded adapter jar, and the distribution's own test
 * uses it on a freshly unpacked tarball.
 *
 * <pre>
 * try (LocalCluster tarn = LocalCluster.start(LocalCluster.home(), 2, Map.of("tarn.datanode.dram.capacity", "1g"))) {
 *     FileSystem fs = FileSystem.get(tarn.uri(), conf);
 * }
 * </pre>
 */
public final class LocalCluster implements AutoCloseable {
    /** System property naming the distribution directory (the one holding bin/tarn and lib/). */
    public static final String HOME_PROPERTY = "tarn.home";

    /** How long one bin/tarn command may take (start waits for the daemons within this). */
    private static final long COMMAND_SECONDS = 120;

    private final Path home;
    private final Path work;
    private final Path conf;
    private final Path run;
    private final Path memory;
    private final URI uri;
    private boolean stopped;

    /** Exit code and combined standard output and error of one bin/tarn command. */
    public record Outcome(int exit, String output) {
    }

    private LocalCluster(Path home, Path work, Path memory, int namenodePort) {
        this.home = home;
        this.work = work;
        this.memory = memory;
        this.conf = work.resolve("conf");
        this.run = work.resolve("run");
        this.uri = URI.create("tarn://127.0.0.1:" + namenodePort);
    }

    /**
     * The distribution named by the {@value #HOME_PROPERTY} system property; fails, naming the
     * build step, when it is unset or not an unpacked distribution.
     */
    public static Path home() {
        String value = System.getProperty(HOME_PROPERTY);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(HOME_PROPERTY + " is not set: point it at an unpacked Tarn distribution "
                    + "(dist/target/tarn-VERSION after 'mvn -B -DskipTests install')");
        }
        Path home = Path.of(value).toAbsolutePath().normalize();
        if (!Files.isRegularFile(home.resolve("bin").resolve("tarn")) || !Files.isDirectory(home.resolve("lib"))) {
            throw new IllegalStateException(home + " is not a Tarn distribution (no bin/tarn and lib/): build it with "
                    + "'mvn -B -DskipTests install'");
        }
        return home;
    }

    /**
     * Starts one namenode and {@code datanodes} DRAM datanodes from the distribution at {@code home}.
     *
     * @param config Tarn keys on top of small test defaults (64 MiB per datanode in 16 MiB regions,
     *               memory files in a fresh directory under /dev/shm)
     * @throws IOException when {@code tarn start} fails; the message holds its output, with the
     *                     last lines of the daemons' logs
     */
    public static LocalCluster start(Path home, int datanodes, Map<String, String> config) throws IOException {
        return start(home, datanodes, config, null);
    }

    /** Like {@link #start(Path, int, Map)}, with the datanodes' memory files under {@code dataRoot} when not null. */
    public static LocalCluster start(Path home, int datanodes, Map<String, String> config, Path dataRoot)
            throws IOException {
        return start(home, datanodes, config, dataRoot, 1);
    }

    /**
     * Like {@link #start(Path, int, Map, Path)}, with the namespace served by a replicated group of
     * {@code replicas} namenodes ({@code tarn start -r}, on the port of {@link #uri()} and the next
     * ones) when it is more than 1.
     */
    public static LocalCluster start(Path home, int datanodes, Map<String, String> config, Path dataRoot,
                                     int replicas) throws IOException {
        Path shm = Path.of("/dev/shm");
        Path memoryParent = dataRoot != null ? Files.createDirectories(dataRoot)
                : Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        Path work = Files.createTempDirectory("tarn-local-");
        Path memory = Files.createTempDirectory(memoryParent, "tarn-local-dram-");
        LocalCluster cluster = new LocalCluster(home, work, memory, freePorts(replicas));
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("tarn.namenode.address", cluster.uri.getAuthority());
        keys.put("tarn.transport", "tcp");
        keys.put("tarn.datanode.bind", "127.0.0.1:0");
        keys.put("tarn.datanode.hostname", "127.0.0.1");
        keys.put("tarn.datanode.heartbeat.interval", "200");
        keys.put("tarn.datanode.dram.capacity", "64m");
        keys.put("tarn.datanode.dram.region.size", "16m");
        keys.put("tarn.datanode.dram.path", memory.toString());
        keys.put("tarn.namenode.journal.dir", work.resolve("namenode-journal").toString()); // deleted with the work dir
        keys.putAll(config);
        Files.createDirectories(cluster.conf);
        StringBuilder site = new StringBuilder();
        keys.forEach((k, v) -> site.append(k).append(' ').append(v).append('\n'));
        Files.writeString(cluster.conf.resolve("tarn-site.conf"), site);
        Path logback = home.resolve("conf").resolve("logback.xml");
        if (Files.isRegularFile(logback)) {
            Files.copy(logback, cluster.conf.resolve("logback.xml"));
        }
        Outcome start = replicas > 1 ? cluster.tarn("start", "-r", Integer.toString(replicas), "-d",
                Integer.toString(datanodes)) : cluster.tarn("start", "-d", Integer.toString(datanodes));
        if (start.exit() != 0) {
            cluster.close();
            throw new IOException("tarn start failed (exit " + start.exit() + "):\n" + start.output());
        }
        return cluster;
    }

    /** {@code tarn://127.0.0.1:<port>}: the namenode, as the Hadoop adapter addresses it. */
    public URI uri() {
        return uri;
    }

    /**
     * What a client of this cluster needs besides its address: the authentication {@code tarn start}
     * gave it ({@code tarn.security.authentication} and the cluster secret's
     * {@code tarn.security.secret.file}, from {@code cluster.args}); as {@code fs.tarn.*} keys for
     * Hadoop, {@code spark.hadoop.fs.tarn.*} for Spark.
     */
    public Map<String, String> clientKeys() throws IOException {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String line : Files.readAllLines(run.resolve("cluster.args"))) {
            if (line.startsWith("-Dtarn.security.")) {
                int eq = line.indexOf('=');
                keys.put(line.substring(2, eq), line.substring(eq + 1));
            }
        }
        if (keys.containsKey("tarn.security.secret.file")) {
            // Only the key file is there when the configuration set the mode itself.
            keys.putIfAbsent("tarn.security.authentication", "secret");
        }
        return keys;
    }

    /** The configuration directory the daemons were started with ({@code tarn-site.conf} in it). */
    public Path confDir() {
        return conf;
    }

    /** The run directory: pid files, {@code cluster.args} and {@code logs/}. */
    public Path runDir() {
        return run;
    }

    /**
     * Runs {@code bin/tarn} with this cluster's configuration and run directories, as a user in a
     * shell where TARN_CONF_DIR and TARN_RUN_DIR point at them would; the rest of the environment
     * (TARN_HEAP, TARN_OPTS, JAVA_HOME) is this process's.
     */
    public Outcome tarn(String... args) throws IOException {
        return run(home, conf, run, args);
    }

    /**
     * Like {@link #tarn}, with {@code bin/tarn} started by {@code wrapper} (a command that runs the rest
     * of its arguments, such as {@code prlimit --nofile=1024:1024}): the daemons it starts inherit it.
     */
    public Outcome tarnUnder(List<String> wrapper, String... args) throws IOException {
        return run(wrapper, home, conf, run, args);
    }

    /** Runs {@code home/bin/tarn args} with the given configuration and run directories. */
    public static Outcome run(Path home, Path confDir, Path runDir, String... args) throws IOException {
        return run(List.of(), home, confDir, runDir, args);
    }

    private static Outcome run(List<String> wrapper, Path home, Path confDir, Path runDir, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(List.of("bash", home.resolve("bin").resolve("tarn").toString()));
        command.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("TARN_CONF_DIR", confDir.toString());
        pb.environment().put("TARN_RUN_DIR", runDir.toString());
        pb.environment().put("TARN_START_TIMEOUT", "60");
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        try {
            if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("bin/tarn " + String.join(" ", args) + " did not finish in " + COMMAND_SECONDS
                        + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted waiting for bin/tarn " + String.join(" ", args), e);
        }
        return new Outcome(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** Stops the daemons ({@code tarn stop}) and removes the configuration, run and memory directories. */
    @Override
    public synchronized void close() throws IOException {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            Outcome stop = tarn("stop");
            if (stop.exit() != 0) {
                throw new IOException("tarn stop failed (exit " + stop.exit() + "):\n" + stop.output());
            }
        } finally {
            deleteTree(work);
            deleteTree(memory);
        }
    }

    /** A free loopback port whose {@code n - 1} successors are free too. */
    private static int freePorts(int n) throws IOException {
        while (true) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            boolean free = port + n - 1 <= 65535;
            for (int p = port + 1; free && p < port + n; p++) {
                try (ServerSocket next = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
                    free = next.isBound();
                } catch (IOException taken) {
                    free = false;
                }
            }
            if (free) {
                return port;
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
