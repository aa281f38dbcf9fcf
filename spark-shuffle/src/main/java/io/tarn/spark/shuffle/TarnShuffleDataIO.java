package io.tarn.spark.shuffle;

import org.apache.spark.SparkConf;
import org.apache.spark.shuffle.api.ShuffleDataIO;
import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.apache.spark.shuffle.api.ShuffleExecutorComponents;

/**
 * Spark's shuffle storage plugin for Tarn ({@code spark.shuffle.sort.io.plugin.class}): map tasks
 * write their output to {@code tarn://} under {@value ShuffleLayout#ROOT_KEY}, and the driver treats
 * that output as reliable, so losing the executor that wrote it reruns nothing. Reading needs
 * {@link TarnShuffleManager} as {@code spark.shuffle.manager}.
 */
public final class TarnShuffleDataIO implements ShuffleDataIO {
    private final SparkConf conf;

    /** Made by Spark, by reflection, with the application's configuration. */
    public TarnShuffleDataIO(SparkConf conf) {
        this.conf = conf;
    }

    @Override
    public ShuffleExecutorComponents executor() {
        return new TarnShuffleExecutorComponents(conf);
    }

    @Override
    public ShuffleDriverComponents driver() {
        return new TarnShuffleDriverComponents(conf);
    }
}
