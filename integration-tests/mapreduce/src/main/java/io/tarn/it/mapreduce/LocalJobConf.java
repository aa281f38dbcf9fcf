package io.tarn.it.mapreduce;

import org.apache.hadoop.conf.Configuration;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

/**
 * The Hadoop configuration the MapReduce jobs here run with: the local job runner in this JVM and a
 * default file system (tarn:// or hdfs://) that holds the jobs' input and output.
 *
 * <p>What MapReduce keeps on local disk on a real node stays on local disk here, under the run's own
 * directory: map output spills, the localized distributed cache, and the staging area (job.xml,
 * splits), which the local job runner always puts on the local file system, whatever
 * {@code fs.defaultFS} is.
 */
public final class LocalJobConf {
    private LocalJobConf() {
    }

    /**
     * A configuration with {@code defaultFs} as {@code fs.defaultFS} and the local job runner.
     *
     * @param localDir a local directory of this run, for everything MapReduce keeps locally
     */
    public static Configuration create(URI defaultFs, Path localDir) {
        return create(defaultFs, localDir, Map.of());
    }

    /**
     * Like {@link #create(URI, Path)}, with the keys a Tarn cluster's clients need ({@code tarn.*}
     * names, such as its authentication) set as Hadoop's {@code fs.tarn.*}.
     */
    public static Configuration create(URI defaultFs, Path localDir, Map<String, String> tarnKeys) {
        Configuration conf = new Configuration();
        tarnKeys.forEach((k, v) -> conf.set("fs." + k, v));
        conf.set("fs.defaultFS", defaultFs.toString());
        // FileContext users (the job's history and cache code) find AbstractFileSystems only by key,
        // never through ServiceLoader: a user's core-site.xml carries this line for tarn://.
        conf.set("fs.AbstractFileSystem.tarn.impl", "io.tarn.hadoop.TarnFs");
        conf.set("mapreduce.framework.name", "local");
        conf.set("hadoop.tmp.dir", localDir.resolve("hadoop-tmp").toString());
        conf.set("mapreduce.jobtracker.staging.root.dir", localDir.resolve("staging").toString());
        conf.set("mapreduce.cluster.local.dir", localDir.resolve("mapred-local").toString());
        return conf;
    }
}
