package io.tarn.spark.shuffle;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The driver's side of the plugin: checks at start that the shuffle directory is reachable (so a
 * job against an unreachable Tarn fails at once, naming the address and the setting), declares the
 * map outputs reliable, and deletes a shuffle's directory when Spark drops the shuffle and the
 * application's when it ends.
 */
final class TarnShuffleDriverComponents implements ShuffleDriverComponents {
    private static final Logger LOG = LoggerFactory.getLogger(TarnShuffleDriverComponents.class);

    private final SparkConf conf;
    private ShuffleLayout layout;
    private FileSystem fs;
    private String appId;

    TarnShuffleDriverComponents(SparkConf conf) {
        this.conf = conf;
    }

    @Override
    public Map<String, String> initializeApplication() {
        layout = ShuffleLayout.of(conf);
        appId = conf.getAppId();
        try {
            fs = ShuffleFiles.open(layout, conf);
            fs.mkdirs(layout.application(appId));
        } catch (IOException e) {
            throw new UncheckedIOException("Tarn shuffle cannot create " + layout.application(appId) + " ("
                    + ShuffleLayout.ROOT_KEY + "): " + e.getMessage(), e);
        }
        return Map.of();
    }

    @Override
    public boolean supportsReliableStorage() {
        return true;
    }

    @Override
    public void removeShuffle(int shuffleId, boolean blocking) {
        if (layout != null) {
            delete(layout.shuffle(appId, shuffleId));
        }
    }

    @Override
    public void cleanupApplication() {
        if (layout != null) {
            delete(layout.application(appId));
        }
    }

    private void delete(Path dir) {
        if (fs == null) {
            return; // the application never reached Tarn
        }
        try {
            fs.delete(dir, true);
        } catch (IOException e) {
            LOG.warn("could not delete the shuffle files in {}: {}", dir, e.toString());
        }
    }
}
