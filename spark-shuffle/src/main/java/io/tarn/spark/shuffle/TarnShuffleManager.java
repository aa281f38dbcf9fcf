package io.tarn.spark.shuffle;

import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.BaseShuffleHandle;
import org.apache.spark.shuffle.ShuffleHandle;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.shuffle.sort.SortShuffleManager;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Spark's shuffle manager for Tarn ({@code spark.shuffle.manager}): Spark's own sort-based writers,
 * which write through {@link TarnShuffleDataIO}, and a reader that takes each map's output from
 * Tarn instead of from the executor that wrote it.
 */
public class TarnShuffleManager extends SortShuffleManager {
    /** Spark's setting naming the shuffle storage plugin. */
    static final String IO_PLUGIN_KEY = "spark.shuffle.sort.io.plugin.class";

    private final ShuffleLayout layout;
    /** The file system of the shuffle root, opened by the first reader of this process. */
    private volatile FileSystem files;

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

    /** The shuffle root's file system, opened once per process with the job's Hadoop settings. */
    private FileSystem files() {
        FileSystem fs = files;
        if (fs == null) {
            synchronized (this) {
                fs = files;
                if (fs == null) {
                    try {
                        fs = ShuffleFiles.open(layout, SparkEnv.get().conf());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    files = fs;
                }
            }
        }
        return fs;
    }

    @Override
    public <K, C> ShuffleReader<K, C> getReader(ShuffleHandle handle, int startMapIndex, int endMapIndex,
            int startPartition, int endPartition, TaskContext context, ShuffleReadMetricsReporter metrics) {
        @SuppressWarnings("unchecked")
        BaseShuffleHandle<K, ?, C> base = (BaseShuffleHandle<K, ?, C>) handle;
        return new TarnShuffleReader<>(layout, files(), base, startMapIndex, endMapIndex, startPartition, endPartition,
                context, metrics);
    }
}
