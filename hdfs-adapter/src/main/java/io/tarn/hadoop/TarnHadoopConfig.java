package io.tarn.hadoop;

import io.tarn.common.config.ConfigException;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.apache.hadoop.conf.Configuration;

import java.net.URI;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a Hadoop {@link Configuration} and a {@code tarn://host:port} URI into a {@link TarnConfig}.
 *
 * <p>Every Hadoop key {@code fs.tarn.<rest>} is Tarn's key {@code tarn.<rest>} (so
 * {@code fs.tarn.client.readahead} sets {@code tarn.client.readahead}), checked by Tarn's own
 * validation: an unknown or malformed key fails {@link TarnFileSystem#initialize} with Tarn's
 * message, did-you-mean included, instead of being silently ignored. The namenode address is the
 * URI's authority, never a key, so one Hadoop configuration can reach several clusters. Hadoop's own
 * per-scheme keys ({@code fs.tarn.impl}, {@code fs.tarn.impl.disable.cache}, ...) are left alone.
 */
public final class TarnHadoopConfig {
    /** Prefix of the Hadoop keys that carry Tarn settings. */
    public static final String PREFIX = "fs.tarn.";
    /** Hadoop's own keys under {@link #PREFIX}: {@code fs.tarn.impl} and its sub-keys. */
    private static final String HADOOP_IMPL_KEY = "impl";

    private TarnHadoopConfig() {
    }

    /** The port a {@code tarn://host/} URI without one means: the namenode's default port. */
    public static int defaultPort() {
        return HostPort.parse(TarnKeys.NAMENODE_ADDRESS.defaultValue()).port();
    }

    /**
     * The Tarn configuration for the cluster named by {@code uri}.
     *
     * @throws IllegalArgumentException for a URI without a host, a {@code fs.tarn.*} key Tarn does not
     *                                  know, or a value it rejects
     */
    public static TarnConfig of(URI uri, Configuration conf) {
        HostPort namenode = namenodeOf(uri);
        TarnConfig.Builder builder = TarnConfig.builder();
        for (Map.Entry<String, String> e : tarnEntries(conf).entrySet()) {
            String hadoopKey = PREFIX + e.getKey();
            String tarnKey = "tarn." + e.getKey();
            if (tarnKey.equals(TarnKeys.NAMENODE_ADDRESS.name())) {
                throw new IllegalArgumentException(hadoopKey + " is not used: the namenode is the authority of the "
                        + "file system URI (tarn://host:port/), here " + uri);
            }
            try {
                builder.set(tarnKey, e.getValue());
            } catch (ConfigException ex) {
                throw new IllegalArgumentException("Hadoop option " + hadoopKey + " (Tarn key " + tarnKey + "): "
                        + ex.getMessage(), ex);
            }
        }
        builder.set(TarnKeys.NAMENODE_ADDRESS, namenode.toString());
        try {
            return builder.build();
        } catch (ConfigException ex) {
            throw new IllegalArgumentException("Tarn settings from fs.tarn.* options: " + ex.getMessage(), ex);
        }
    }

    /** host:port of the namenode: the URI's authority, with the default port when it has none. */
    public static HostPort namenodeOf(URI uri) {
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("a Tarn URI names its namenode, as tarn://host:port/ (port "
                    + defaultPort() + " when omitted), not " + uri);
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1); // an IPv6 literal; HostPort keeps it bare
        }
        int port = uri.getPort() < 0 ? defaultPort() : uri.getPort();
        return new HostPort(host, port);
    }

    /** The {@code fs.tarn.*} entries that are Tarn settings, by the rest of their name, sorted. */
    static Map<String, String> tarnEntries(Configuration conf) {
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, String> e : conf.getPropsWithPrefix(PREFIX).entrySet()) {
            String rest = e.getKey();
            if (rest.equals(HADOOP_IMPL_KEY) || rest.startsWith(HADOOP_IMPL_KEY + ".")) {
                continue;
            }
            out.put(rest, e.getValue());
        }
        return out;
    }
}
