package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the plugin leaves on Tarn and what it says when it is set up wrong: a shuffle Spark drops
 * (as its ContextCleaner does once the shuffle's RDD is gone) loses its directory, a stopped
 * application its own; a job against a Tarn that is not there, or a manager without its storage
 * plugin, or no root at all, fails at start with the setting to fix.
 */
class ShuffleLifecycleIT {
    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;
    private static FileSystem fs;

    @BeforeAll
    static void start() throws IOException {
        tarn = TestJobs.startTarn(1, Map.of());
        Configuration hadoop = new Configuration();
        tarn.clientKeys().forEach((k, v) -> hadoop.set("fs." + k, v));
        fs = FileSystem.get(tarn.uri(), hadoop);
    }

    @AfterAll
    static void stop() throws IOException {
        if (tarn != null) {
            fs.close();
            tarn.close();
        }
    }

    private static SparkConf conf(String root) throws IOException {
        return TestJobs.onTarn(TestJobs.conf("local[2]", "ShuffleLifecycleIT", localDir), tarn, root);
    }

    /** A shuffle of three maps into two partitions. */
    private static JavaPairRDD<Integer, Integer> counts(JavaSparkContext sc) {
        return sc.parallelize(IntStream.range(0, 10_000).boxed().toList(), 3)
                .mapToPair(i -> new Tuple2<>(i % 10, 1)).reduceByKey(Integer::sum, 2);
    }

    @Test
    void aDroppedShuffleLosesItsDirectoryAndAStoppedApplicationItsOwn() throws Exception {
        Path root = new Path(tarn.uri() + "/jobs/shuffle");
        JavaSparkContext sc = new JavaSparkContext(conf(root.toString()));
        Path app;
        try {
            app = new Path(root, sc.sc().applicationId());
            // Both RDDs stay reachable: once one is garbage, the ContextCleaner would drop its shuffle itself.
            JavaPairRDD<Integer, Integer> a = counts(sc);
            JavaPairRDD<Integer, Integer> b = counts(sc);
            assertThat(a.count()).isEqualTo(10);
            assertThat(b.count()).isEqualTo(10);
            Path first = new Path(app, "0");
            Path second = new Path(app, "1");
            assertThat(fs.listStatus(first)).as("map outputs of shuffle 0").hasSize(6);
            assertThat(fs.exists(second)).isTrue();

            sc.sc().cleaner().get().doCleanupShuffle(0, true); // what the ContextCleaner does
            assertThat(fs.exists(first)).as(first + " after the shuffle was dropped").isFalse();
            assertThat(fs.exists(second)).isTrue();
            assertThat(b.count()).as("shuffle 1, still there, read again").isEqualTo(10);
            assertThat(a.getNumPartitions()).isEqualTo(2);
        } finally {
            sc.stop();
        }
        assertThat(fs.exists(app)).as(app + " after the application stopped").isFalse();
        assertThat(fs.listStatus(root)).isEmpty();
    }

    @Test
    void aTarnThatIsNotThereFailsTheApplicationAtStartNamingTheAddressAndTheSetting() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        String root = "tarn://127.0.0.1:" + port + "/spark-shuffle";
        long started = System.nanoTime();
        assertThatThrownBy(() -> new JavaSparkContext(conf(root)).stop())
                .hasStackTraceContaining(root)
                .hasStackTraceContaining(ShuffleLayout.ROOT_KEY);
        assertThat((System.nanoTime() - started) / 1_000_000_000L).as("seconds to fail").isLessThan(30);
    }

    @Test
    void aManagerWithoutItsStoragePluginOrWithoutARootIsRefusedWithTheFix() throws Exception {
        SparkConf noPlugin = conf(tarn.uri() + "/spark-shuffle").remove("spark.shuffle.sort.io.plugin.class");
        assertThatThrownBy(() -> new JavaSparkContext(noPlugin).stop())
                .hasStackTraceContaining("add --conf spark.shuffle.sort.io.plugin.class="
                        + TarnShuffleDataIO.class.getName());
        assertThatThrownBy(() -> new JavaSparkContext(conf(null)).stop())
                .hasStackTraceContaining("Tarn shuffle needs " + ShuffleLayout.ROOT_KEY);
    }
}
