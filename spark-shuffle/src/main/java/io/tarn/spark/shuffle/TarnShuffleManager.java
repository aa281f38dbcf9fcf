package io.tarn.spark.shuffle;

import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.BaseShuffleHandle;
import org.apache.spark.shuffle.ShuffleHandle;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.shuffle.sort.SortShuffleManager;

/**
 * Spark's shuffle manager for Tarn ({@code spark.shuffle.manager}): Spark's own sort-based writers,
 * which write through {@link TarnShuffleDataIO}, and a reader that takes each map's output from
 * Tarn instead of from the executor that wrote it.
 */
public class TarnShuffleManager extends SortShuffleManager {
    /** Spark's setting naming the shuffle storage plugin. */
    static final String IO_PLUGIN_KEY = "spark.shuffle.sort.io.plugin.class";

    private final ShuffleLayout layout;

    /** Made by Spark, by reflection, on the driver and on each executor. */
    public TarnShuffleManager(SparkConf conf) {
        super(conf);
        String plugin = conf.get(IO_PLUGIN_KEY, "");
        if (!TarnShuffleDataIO.class.getName().equals(plugin)) {
            throw new IllegalArgumentException(TarnShuffleManager.class.getName() + " reads what "
                    + TarnShuffleDataIO.class.getName() + " writes, but " + IO_PLUGIN_KEY + " is "
                    + (plugin.isEmpty() ? "not set" : plugin) + ": add --conf " + IO_PLUGIN_KEY + "="
                    + TarnShuffleDataIO.class.getName());
        }
        this.layout = ShuffleLayout.of(conf);
    }

    @Override
    public <K, C> ShuffleReader<K, C> getReader(ShuffleHandle handle, int startMapIndex, int endMapIndex,
            int startPartition, int endPartition, TaskContext context, ShuffleReadMetricsReporter metrics) {
        @SuppressWarnings("unchecked")
        BaseShuffleHandle<K, ?, C> base = (BaseShuffleHandle<K, ?, C>) handle;
        return new TarnShuffleReader<>(layout, base, startMapIndex, endMapIndex, startPartition, endPartition,
                context, metrics);
    }
}
