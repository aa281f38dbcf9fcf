package io.tarn.hadoop;

import io.tarn.client.TarnClient;
import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.security.KeyFile;
import io.tarn.namenode.security.GroupMapping;
import io.tarn.minicluster.MiniCluster;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.security.UserGroupInformation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

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
 * <p>These tests run on the adapter's unshaded classes, beside the cluster. The shaded jar is checked
 * by {@code ShadedJarIT} here, and run on the class paths of a Hadoop and a Spark installation by
 * the integration tests.
 */
public final class TarnTestCluster {
    /** The block size the cluster runs with. */
    public static final int BLOCK_SIZE = 64 * 1024;
    /** Datanodes in the cluster. */
    public static final int DATANODES = 2;
    /**
     * System property: how many namenodes the cluster runs, 1 when unset; at most 8, since each
     * datanode has 8 regions to share among them.
     */
    public static final String NAMENODES_PROPERTY = "tarn.test.namenodes";
    /**
     * System property: {@code permissions} runs the cluster with authentication
     * ({@code tarn.security.authentication = secret}) and permission checks, the tests connecting
     * with a client key as the caller's Hadoop user, to whom the namenode's own user (the superuser)
     * hands the root directory, as an administrator gives a user its space. The build sets it, with
     * {@code HADOOP_USER_NAME} naming a user that is not a superuser, for the runs with 2 and 4
     * namenodes. Unset: no authentication, nothing checked.
     */
    public static final String SECURITY_PROPERTY = "tarn.test.security";

    private static TarnTestCluster shared;

    private final MiniCluster cluster;
    private final URI uri;
    /** The client key the tests connect with, or null without authentication. */
    private final Path clientKey;

    private TarnTestCluster(MiniCluster cluster, int namenodePort, Path clientKey) {
        this.cluster = cluster;
        this.uri = URI.create("tarn://127.0.0.1:" + namenodePort);
        this.clientKey = clientKey;
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

    /** Whether {@value #SECURITY_PROPERTY} asks for authentication and permission checks. */
    public static boolean secure() {
        String value = System.getProperty(SECURITY_PROPERTY, "").trim();
        if (value.isEmpty()) {
            return false;
        }
        if (!value.equals("permissions")) {
            throw new IllegalStateException(SECURITY_PROPERTY + " = '" + value
                    + "': expected 'permissions' or nothing");
        }
        return true;
    }

    /**
     * A Hadoop configuration for tests: {@code FileContext} bound to {@link TarnFs}, and the client
     * key when the cluster authenticates. The FileSystem needs nothing: it is found through
     * {@code META-INF/services}.
     */
    public static Configuration newConfiguration() {
        Configuration conf = new Configuration();
        conf.set("fs.AbstractFileSystem.tarn.impl", TarnFs.class.getName());
        return withKey(conf);
    }

    /** {@code conf} with the client key set, when the cluster authenticates (starting it then). */
    public static Configuration withKey(Configuration conf) {
        if (secure()) {
            conf.set("fs.tarn.security.authentication", "secret");
            conf.set("fs.tarn.security.secret.file", get().clientKey.toString());
        }
        return conf;
    }

    /**
     * {@link #newConfiguration()} for the user that runs the namenode, a superuser: for what only
     * an administrator may do (give a file to another user).
     */
    public static Configuration adminConfiguration() {
        Configuration conf = newConfiguration();
        conf.set("fs.tarn.client.user", System.getProperty("user.name"));
        return conf;
    }

    /** A FileContext whose default file system is the shared cluster. */
    public FileContext newFileContext() throws IOException {
        return FileContext.getFileContext(uri, newConfiguration());
    }

    private static TarnTestCluster start() {
        int namenodes = namenodes();
        try {
            MiniCluster.Builder builder = MiniCluster.builder().namenodes(namenodes).datanodes(DATANODES)
                    .set(TarnKeys.BLOCK_SIZE, (long) BLOCK_SIZE)
                    .set("tarn.datanode.dram.capacity", "128m")
                    .set("tarn.datanode.dram.region.size", "16m");
            if (!secure()) {
                MiniCluster cluster = builder.start();
                return new TarnTestCluster(cluster, cluster.namenode(namenodes - 1).address().getPort(), null);
            }
            String user = UserGroupInformation.getCurrentUser().getShortUserName();
            Path keys = Files.createTempDirectory("tarn-test-keys-");
            KeyFile secret = KeyFile.newClusterSecret();
            Path clusterSecret = keys.resolve("cluster.secret");
            secret.write(clusterSecret);
            Path clientKey = keys.resolve("client.key");
            secret.clientKey().write(clientKey);
            // The test user belongs to the groups of the account running the build, which Hadoop's
            // FileContext permission suite gives its files (through the namenode, as that user).
            Path groups = keys.resolve("groups");
            Files.writeString(groups, user + ": " + String.join(", ", GroupMapping.shell()
                    .groups(System.getProperty("user.name"))) + "\n");
            MiniCluster cluster = builder.set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                    .set(TarnKeys.SECURITY_SECRET_FILE, clusterSecret.toString())
                    .set(TarnKeys.SECURITY_GROUPS_FILE, groups.toString()).start();
            try (TarnClient admin = TarnClient.connect(cluster.config())) {
                admin.setOwner("/", user, null);
            }
            return new TarnTestCluster(cluster, cluster.namenode(namenodes - 1).address().getPort(), clientKey);
        } catch (IOException e) {
            throw new UncheckedIOException("the Tarn MiniCluster did not start", e);
        }
    }

    private void stop() {
        cluster.close();
    }
}
