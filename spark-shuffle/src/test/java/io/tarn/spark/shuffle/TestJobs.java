package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.spark.SparkConf;

import java.io.IOException;
import java.nio.file.Path;

/** Spark settings the tests' jobs share. */
final class TestJobs {
    private TestJobs() {
    }

    /** A job on loopback without its web UI, scratch space under {@code localDir}. */
    static SparkConf conf(String master, String appName, Path localDir) {
        return new SparkConf().setMaster(master).setAppName(appName)
                .set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.local.dir", localDir.resolve("spark-local").toString());
    }

    /** Turns the plugin on, its files under {@code root}, with what a client of {@code tarn} needs. */
    static SparkConf onTarn(SparkConf conf, LocalCluster tarn, String root) throws IOException {
        conf.set("spark.shuffle.manager", TarnShuffleManager.class.getName())
                .set("spark.shuffle.sort.io.plugin.class", TarnShuffleDataIO.class.getName());
        if (root != null) {
            conf.set(ShuffleLayout.ROOT_KEY, root);
        }
        tarn.clientKeys().forEach((k, v) -> conf.set("spark.hadoop.fs." + k, v));
        return conf;
    }
}
