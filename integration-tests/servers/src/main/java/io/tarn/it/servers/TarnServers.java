package io.tarn.it.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A Tarn cluster (one namenode, N DRAM datanodes: tarn-client's {@code MiniCluster}) running in this
 * JVM for integration tests and benchmarks, in a class loader of its own.
 *
 * <p>The jobs under test must see Tarn only through the shaded {@code tarn-hdfs-adapter} jar, as a
 * Hadoop or Spark installation does. The servers need the unshaded Tarn classes and Netty 4.2.18, so
 * they are loaded from {@code target/tarn-server-lib} of this module (tarn-client, its runtime
 * dependencies, logback, and {@code conf/logback.xml}) by a {@link URLClassLoader} whose parent is
 * the platform class loader: nothing on the caller's class path (Hadoop, Spark, their Netty and
 * logging) is visible to the servers, and nothing of theirs to the caller. The cluster is driven by
 * reflection because its classes are not the caller's classes.
 *
 * <pre>
 * try (TarnServers tarn = TarnServers.start(2, Map.of("tarn.datanode.dram.capacity", "1g"))) {
 *     FileSystem fs = FileSystem.get(tarn.uri(), conf);
 * }
 * </pre>
 */
public final class TarnServers implements AutoCloseable {
    /** System property overriding where the server jars are (default: this module's build output). */
    public static final String SERVER_LIB_PROPERTY = "tarn.it.server.lib";

    private static final String MINI_CLUSTER = "io.tarn.client.minicluster.MiniCluster";

    private final URLClassLoader loader;
    private final AutoCloseable cluster;
    private final URI uri;

    private TarnServers(URLClassLoader loader, AutoCloseable cluster, int namenodePort) {
        this.loader = loader;
        this.cluster = cluster;
        this.uri = URI.create("tarn://127.0.0.1:" + namenodePort);
    }

    /**
     * Starts a namenode and {@code datanodes} DRAM datanodes on loopback ephemeral ports.
     *
     * @param config Tarn keys in their text form (e.g. {@code tarn.datanode.dram.capacity=1g}) on top
     *               of MiniCluster's defaults (64 MiB per datanode, 16 MiB regions, TCP)
     * @throws IOException when a server does not start; the cause is the server's own exception
     */
    public static TarnServers start(int datanodes, Map<String, String> config) throws IOException {
        return start(datanodes, config, null);
    }

    /**
     * Like {@link #start(int, Map)}, with the datanodes' region files in a fresh directory under
     * {@code dataRoot} (MiniCluster's {@code dataRoot}; null for its default, {@code /dev/shm}).
     */
    public static TarnServers start(int datanodes, Map<String, String> config, Path dataRoot) throws IOException {
        URLClassLoader loader = new URLClassLoader("tarn-servers", serverClasspath(), ClassLoader.getPlatformClassLoader());
        boolean started = false;
        try {
            TarnServers servers = withContextLoader(loader, () -> {
                Class<?> miniCluster = loader.loadClass(MINI_CLUSTER);
                Object builder = miniCluster.getMethod("builder").invoke(null);
                Class<?> builderType = builder.getClass();
                builderType.getMethod("datanodes", int.class).invoke(builder, datanodes);
                if (dataRoot != null) {
                    builderType.getMethod("dataRoot", Path.class).invoke(builder, dataRoot);
                }
                for (Map.Entry<String, String> e : config.entrySet()) {
                    builderType.getMethod("set", String.class, String.class).invoke(builder, e.getKey(), e.getValue());
                }
                AutoCloseable cluster = (AutoCloseable) builderType.getMethod("start").invoke(builder);
                InetSocketAddress namenode = (InetSocketAddress) miniCluster.getMethod("namenodeAddress").invoke(cluster);
                return new TarnServers(loader, cluster, namenode.getPort());
            });
            started = true;
            return servers;
        } finally {
            if (!started) {
                loader.close();
            }
        }
    }

    /** {@code tarn://127.0.0.1:<port>}: the namenode, as the adapter addresses it. */
    public URI uri() {
        return uri;
    }

    /** Stops the datanodes and the namenode (their memory files go with them) and drops the loader. */
    @Override
    public void close() throws IOException {
        try {
            withContextLoader(loader, () -> {
                cluster.close();
                return null;
            });
        } finally {
            loader.close();
        }
    }

    /**
     * Runs {@code action} with the server loader as the thread's context loader: threads the servers
     * start (Netty's event loops, heartbeats) inherit it, and ServiceLoader look-ups find the servers'
     * providers rather than the caller's.
     */
    private static <T> T withContextLoader(ClassLoader loader, ReflectiveAction<T> action) throws IOException {
        Thread current = Thread.currentThread();
        ClassLoader previous = current.getContextClassLoader();
        current.setContextClassLoader(loader);
        try {
            return action.run();
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("Tarn servers failed: " + cause, cause);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot drive " + MINI_CLUSTER + " in " + serverLib() + ": " + e, e);
        } finally {
            current.setContextClassLoader(previous);
        }
    }

    /** conf/ (for logback.xml) first, then every jar of the server lib directory. */
    private static URL[] serverClasspath() throws IOException {
        Path lib = serverLib();
        if (!Files.isDirectory(lib)) {
            throw new IOException("no Tarn server jars at " + lib + ": build integration-tests/servers first "
                    + "(mvn -f integration-tests/pom.xml package)");
        }
        List<URL> urls = new ArrayList<>();
        urls.add(toUrl(lib.resolve("conf")));
        try (Stream<Path> jars = Files.list(lib)) {
            jars.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().forEach(p -> urls.add(toUrl(p)));
        }
        return urls.toArray(URL[]::new);
    }

    /** The directory of server jars: the system property, else the path this module's build recorded. */
    static Path serverLib() throws IOException {
        String override = System.getProperty(SERVER_LIB_PROPERTY);
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        Properties p = new Properties();
        try (InputStream in = TarnServers.class.getResourceAsStream("tarn-servers.properties")) {
            if (in == null) {
                throw new IOException("tarn-servers.properties missing next to " + TarnServers.class.getName());
            }
            p.load(in);
        }
        return Path.of(p.getProperty("server.lib"));
    }

    private static URL toUrl(Path p) {
        try {
            return p.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A reflective step that may throw anything reflection throws. */
    @FunctionalInterface
    private interface ReflectiveAction<T> {
        T run() throws Exception;
    }
}
