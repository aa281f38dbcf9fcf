package io.tarn.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Tarn cluster every test in this JVM talks to: a MiniCluster (one namenode unless the
 * {@value #NAMENODES_PROPERTY} system property asks for more, two DRAM datanodes, 64 KiB blocks so
 * that small test files span several) started on first use and stopped when the JVM exits.
 *
 * <p>With several namenodes (partitions of one namespace, docs/partitioning.md) the tests' URI names
 * the last of them, never the coordinator, so every suite also proves that a client given any one
 * namenode finds the others. The build runs {@code TarnFileSystemIT}, the contract and the
 * FileContext suites once per namenode count (1, 2 and 4), each count in a JVM of its own
 * (hdfs-adapter/pom.xml).
 *
 * <p>The cluster runs in a class loader of its own, built from the jars of tarn-client and its
 * runtime dependencies (listed by the build in {@code target/tarn-cluster.classpath}) with only the
 * JDK as parent. The tests themselves see the shaded adapter jar; keeping the two apart means the
 * tests prove the shaded jar works alone, and that no server class leaks into it. The cluster is
 * driven by reflection, since its classes are not the tests' classes.
 */
public final class TarnTestCluster {
    /** Where the build writes the cluster's class path (system property set by failsafe). */
    public static final String CLASSPATH_PROPERTY = "tarn.test.cluster.classpath";
    /** The block size the cluster runs with. */
    public static final int BLOCK_SIZE = 64 * 1024;
    /** Datanodes in the cluster. */
    public static final int DATANODES = 2;
    /**
     * System property: how many namenodes the cluster runs, 1 when unset; at most 8, since each
     * datanode has 8 regions to share among them.
     */
    public static final String NAMENODES_PROPERTY = "tarn.test.namenodes";

    private static TarnTestCluster shared;

    private final URLClassLoader loader;
    private final AutoCloseable cluster;
    private final URI uri;

    private TarnTestCluster(URLClassLoader loader, AutoCloseable cluster, int namenodePort) {
        this.loader = loader;
        this.cluster = cluster;
        this.uri = URI.create("tarn://127.0.0.1:" + namenodePort);
    }

    /** The shared cluster, started on first call. */
    public static synchronized TarnTestCluster get() {
        if (shared == null) {
            shared = start();
            TarnTestCluster started = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "tarn-test-cluster-stop"));
        }
        return shared;
    }

    /** {@code tarn://127.0.0.1:<port>}: the URI of the namenode the tests name (the last one). */
    public URI uri() {
        return uri;
    }

    /**
     * The namenode count asked for by {@value #NAMENODES_PROPERTY}, 1 when it is unset. Anything
     * other than a whole number fails, so that a mistyped build setting cannot quietly test one namenode.
     */
    public static int namenodes() {
        String value = System.getProperty(NAMENODES_PROPERTY, "").trim();
        if (value.isEmpty()) {
            return 1;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(NAMENODES_PROPERTY + " = '" + value + "' is not a number of namenodes");
        }
    }

    /**
     * A Hadoop configuration for tests: {@code FileContext} bound to {@link TarnFs}. The FileSystem
     * needs nothing: it is found through {@code META-INF/services}.
     */
    public static Configuration newConfiguration() {
        Configuration conf = new Configuration();
        conf.set("fs.AbstractFileSystem.tarn.impl", TarnFs.class.getName());
        return conf;
    }

    /** A FileContext whose default file system is the shared cluster. */
    public FileContext newFileContext() throws IOException {
        return FileContext.getFileContext(uri, newConfiguration());
    }

    private static TarnTestCluster start() {
        URLClassLoader loader = new URLClassLoader("tarn-cluster", clusterClasspath(), ClassLoader.getPlatformClassLoader());
        Thread current = Thread.currentThread();
        ClassLoader previous = current.getContextClassLoader();
        current.setContextClassLoader(loader);
        try {
            Class<?> miniCluster = loader.loadClass("io.tarn.client.minicluster.MiniCluster");
            Object builder = miniCluster.getMethod("builder").invoke(null);
            Class<?> builderType = builder.getClass();
            int namenodes = namenodes();
            builderType.getMethod("namenodes", int.class).invoke(builder, namenodes);
            builderType.getMethod("datanodes", int.class).invoke(builder, DATANODES);
            set(builder, "tarn.blocksize", Integer.toString(BLOCK_SIZE));
            set(builder, "tarn.datanode.dram.capacity", "128m");
            set(builder, "tarn.datanode.dram.region.size", "16m");
            AutoCloseable cluster = (AutoCloseable) builderType.getMethod("start").invoke(builder);
            Object last = miniCluster.getMethod("namenode", int.class).invoke(cluster, namenodes - 1);
            InetSocketAddress address = (InetSocketAddress) last.getClass().getMethod("address").invoke(last);
            return new TarnTestCluster(loader, cluster, address.getPort());
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("the Tarn MiniCluster did not start", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot drive io.tarn.client.minicluster.MiniCluster", e);
        } finally {
            current.setContextClassLoader(previous);
        }
    }

    private static void set(Object builder, String key, String value) throws ReflectiveOperationException {
        builder.getClass().getMethod("set", String.class, String.class).invoke(builder, key, value);
    }

    private static URL[] clusterClasspath() {
        String file = System.getProperty(CLASSPATH_PROPERTY);
        if (file == null) {
            throw new IllegalStateException(CLASSPATH_PROPERTY + " is not set: run the tests through Maven (failsafe)");
        }
        try {
            String text = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
            List<URL> urls = new ArrayList<>();
            for (String entry : text.split(java.io.File.pathSeparator)) {
                if (!entry.isBlank()) {
                    urls.add(Path.of(entry.trim()).toUri().toURL());
                }
            }
            return urls.toArray(new URL[0]);
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the cluster class path from " + file, e);
        }
    }

    private void stop() {
        try {
            cluster.close();
            loader.close();
        } catch (Exception e) {
            System.err.println("stopping the Tarn test cluster: " + e);
        }
    }
}
