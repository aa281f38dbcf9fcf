package io.tarn.spark.shuffle;

import java.net.URISyntaxException;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;

import java.net.URI;

/**
 * Where shuffle files live: {@code <root>/<appId>/<shuffleId>/shuffle_<shuffleId>_<mapTaskId>_0.data}
 * and {@code .index} beside it. The map task id is unique per attempt, so retried, speculative and
 * zombie attempts never share a file; each writer writes under hidden pending names of its own and
 * renames the data file, then the index, into place, so the index's presence marks the attempt
 * committed, and the map output tracker names the attempt whose output counts.
 */
public final class ShuffleLayout {
    /** Spark setting: the directory on Tarn that holds every application's shuffle files. */
    public static final String ROOT_KEY = "spark.shuffle.tarn.root";

    private final Path root;

    ShuffleLayout(Path root) {
        this.root = root;
    }

    /**
     * The layout under {@value #ROOT_KEY}; fails with the setting to add when it is missing or not
     * an absolute {@code tarn://} URI.
     */
    static ShuffleLayout of(SparkConf conf) {
        String value = conf.get(ROOT_KEY, "").trim();
        if (value.isEmpty()) {
            throw new IllegalArgumentException("Tarn shuffle needs " + ROOT_KEY + ", the directory for shuffle files "
                    + "on Tarn, such as --conf " + ROOT_KEY + "=tarn://namenode-host:9060/spark-shuffle");
        }
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(ROOT_KEY + " = " + value + " is not a URI: " + e.getMessage(), e);
        }
        if (uri.getScheme() == null || uri.getAuthority() == null || uri.getPath() == null
                || !uri.getPath().startsWith("/")) {
            throw new IllegalArgumentException(ROOT_KEY + " = " + value + " must name the file system and an "
                    + "absolute directory, such as tarn://namenode-host:9060/spark-shuffle");
        }
        return new ShuffleLayout(new Path(uri));
    }

    Path root() {
        return root;
    }

    Path application(String appId) {
        return new Path(root, appId);
    }

    Path shuffle(String appId, int shuffleId) {
        return new Path(application(appId), Integer.toString(shuffleId));
    }

    Path data(String appId, int shuffleId, long mapTaskId) {
        return new Path(shuffle(appId, shuffleId), name(shuffleId, mapTaskId) + ".data");
    }

    Path index(String appId, int shuffleId, long mapTaskId) {
        return new Path(shuffle(appId, shuffleId), name(shuffleId, mapTaskId) + ".index");
    }

    /** Where one writer of the attempt writes its data before renaming it into place; {@code token} is its own. */
    Path pendingData(String appId, int shuffleId, long mapTaskId, String token) {
        return new Path(shuffle(appId, shuffleId), "." + name(shuffleId, mapTaskId) + ".data." + token + ".pending");
    }

    /** Where one writer of the attempt writes the index before renaming it into place. */
    Path pendingIndex(String appId, int shuffleId, long mapTaskId, String token) {
        return new Path(shuffle(appId, shuffleId), "." + name(shuffleId, mapTaskId) + ".index." + token + ".pending");
    }

    private static String name(int shuffleId, long mapTaskId) {
        return "shuffle_" + shuffleId + "_" + mapTaskId + "_0";
    }
}
