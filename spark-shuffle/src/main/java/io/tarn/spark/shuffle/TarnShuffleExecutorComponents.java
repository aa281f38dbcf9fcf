package io.tarn.spark.shuffle;

import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
import org.apache.spark.shuffle.api.ShuffleExecutorComponents;
import org.apache.spark.shuffle.api.ShuffleMapOutputWriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.UUID;

/** An executor's side of the plugin: one writer per map attempt. */
final class TarnShuffleExecutorComponents implements ShuffleExecutorComponents {
    private final SparkConf conf;
    private ShuffleLayout layout;
    private FileSystem fs;
    private String appId;

    TarnShuffleExecutorComponents(SparkConf conf) {
        this.conf = conf;
    }

    @Override
    public void initializeExecutor(String appId, String execId, Map<String, String> extraConfigs) {
        this.appId = appId;
        this.layout = ShuffleLayout.of(conf);
        try {
            this.fs = ShuffleFiles.open(layout, conf);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public ShuffleMapOutputWriter createMapOutputWriter(int shuffleId, long mapTaskId, int numPartitions)
            throws IOException {
        if (fs == null) {
            throw new IllegalStateException("the Tarn shuffle plugin was not initialized on this executor");
        }
        String token = UUID.randomUUID().toString();
        return new TarnMapOutputWriter(fs, layout.pendingData(appId, shuffleId, mapTaskId, token),
                layout.data(appId, shuffleId, mapTaskId), layout.pendingIndex(appId, shuffleId, mapTaskId, token),
                layout.index(appId, shuffleId, mapTaskId), numPartitions);
    }
}
