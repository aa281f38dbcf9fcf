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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The driver's side of the plugin: checks at start that the shuffle directory is reachable (so a
 * job against an unreachable Tarn fails at once, naming the address and the setting), declares the
 * map outputs reliable, and deletes a shuffle's directory when Spark drops the shuffle and the
 * application's when it ends. While the application runs it sets its directory's modification
 * time every {@value #RENEW_KEY} (30 s by default), so that a namenode with
 * {@code tarn.namenode.expire.dirs} on the root deletes the directory of a driver that died without
 * cleaning up, and only such a one.
 */
final class TarnShuffleDriverComponents implements ShuffleDriverComponents {
    private static final Logger LOG = LoggerFactory.getLogger(TarnShuffleDriverComponents.class);
    /** Spark setting: how often the driver renews its application directory; 0 never. */
    static final String RENEW_KEY = "spark.shuffle.tarn.app.renewInterval";

    private final SparkConf conf;
    private ShuffleLayout layout;
    private FileSystem fs;
    private String appId;
    private ScheduledExecutorService renewer;

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
        long every = conf.getTimeAsMs(RENEW_KEY, "30s");
        if (every < 0) {
            throw new IllegalArgumentException(RENEW_KEY + " must be 0 (never) or a positive duration, got " + every
                    + " ms");
        }
        if (every > 0) {
            renewer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "tarn-shuffle-renew");
                t.setDaemon(true);
                return t;
            });
            renewer.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
        }
        return Map.of();
    }

    /** Sets the application directory's modification time to now: the application is alive. */
    private void renew() {
        Path app = layout.application(appId);
        try {
            fs.setTimes(app, System.currentTimeMillis(), -1);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not renew the shuffle directory {} ({}): {}", app, RENEW_KEY, e.toString());
        }
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
        if (renewer != null) {
            renewer.shutdownNow();
        }
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
