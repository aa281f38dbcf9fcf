package io.tarn.spark.shuffle;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
import org.apache.spark.deploy.SparkHadoopUtil;

import java.io.IOException;

/** The file system holding the shuffle files, with the job's {@code spark.hadoop.*} settings. */
final class ShuffleFiles {
    private ShuffleFiles() {
    }

    /** The file system of {@code layout}'s root, as Spark's Hadoop configuration reaches it. */
    static FileSystem open(ShuffleLayout layout, SparkConf conf) throws IOException {
        Configuration hadoop = SparkHadoopUtil.get().newConfiguration(conf);
        try {
            return layout.root().getFileSystem(hadoop);
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot reach the shuffle directory " + layout.root() + " ("
                    + ShuffleLayout.ROOT_KEY + "): " + e.getMessage() + ". Is the Tarn adapter jar on the class "
                    + "path (spark.jars) and are its spark.hadoop.fs.tarn.* settings right?", e);
        }
    }
}
