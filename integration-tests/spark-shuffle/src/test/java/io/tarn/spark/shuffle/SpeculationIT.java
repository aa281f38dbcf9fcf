package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Speculation on, on a standalone Spark cluster of two one-core workers on different loopback
 * addresses: the first attempt of one map task is slow on purpose, Spark launches a copy on the
 * other worker, the copy's output wins and the slow attempt is killed. Each attempt writes files of
 * its own (its task id differs), so the reduce side reads the winner's alone: the sums come out
 * right, and exactly one committed output per map is on Tarn.
 */
class SpeculationIT {
    private static final int RECORDS = 100_000;
    private static final int KEYS = 500;
    private static final int MAPS = 4;

    @TempDir
    static java.nio.file.Path dir;

    private static LocalCluster tarn;
    private static StandaloneSpark spark;

    @BeforeAll
    static void start() throws IOException {
        tarn = TestJobs.startTarn(2, Map.of("tarn.datanode.dram.capacity", "256m"));
        spark = StandaloneSpark.start(2, dir.resolve("standalone"));
    }

    @AfterAll
    static void stop() throws IOException {
        if (spark != null) {
            spark.close();
        }
        TestJobs.stop(tarn);
    }

    @Test
    void aSpeculativeCopyOfASlowMapWinsAndTheReduceReadsItsOutputAlone() throws Exception {
        String root = tarn.uri() + "/spark-shuffle";
        SparkConf conf = TestJobs.onTarn(TestJobs.cluster(spark.masterUrl(), "SpeculationIT", dir), tarn, root)
                .set("spark.executor.memory", "768m")
                .set("spark.speculation", "true")
                .set("spark.speculation.interval", "100ms")
                .set("spark.speculation.quantile", "0.5")
                .set("spark.speculation.multiplier", "2")
                .set("spark.speculation.minTaskRuntime", "200ms");
        JavaSparkContext sc = new JavaSparkContext(conf);
        try {
            List<SparkListenerTaskEnd> ends = new CopyOnWriteArrayList<>();
            sc.sc().addSparkListener(new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd end) {
                    ends.add(end);
                }
            });
            TestJobs.awaitExecutors(sc, 2);
            JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, RECORDS).boxed().toList(), MAPS)
                    .mapToPair(i -> {
                        TaskContext task = TaskContext.get();
                        if (task.partitionId() == 0 && task.attemptNumber() == 0 && i == 0) {
                            Thread.sleep(60_000); // the slow first attempt, killed once its copy wins
                        }
                        return new Tuple2<>(i % KEYS, (long) i);
                    }).reduceByKey(Long::sum, 3);
            Map<Integer, Long> got = new TreeMap<>(sums.collectAsMap());

            Map<Integer, Long> want = new TreeMap<>();
            for (int i = 0; i < RECORDS; i++) {
                want.merge(i % KEYS, (long) i, Long::sum);
            }
            assertThat(got).isEqualTo(want);
            assertThat(ends).as("a speculative copy of the slow map ran and succeeded")
                    .anyMatch(e -> e.taskInfo().speculative() && e.taskInfo().successful()
                            && "ShuffleMapTask".equals(e.taskType()));

            FileSystem fs = new Path(root).getFileSystem(sc.hadoopConfiguration());
            Path shuffle = new Path(new Path(root, sc.sc().applicationId()), "0");
            FileStatus[] files = fs.listStatus(shuffle);
            long indexes = Arrays.stream(files).filter(f -> f.getPath().getName().endsWith(".index")).count();
            assertThat(indexes).as("committed map outputs in %s: %s", shuffle, Arrays.toString(files))
                    .isEqualTo(MAPS);
            assertThat(sums.count()).as("read again").isEqualTo(KEYS);
        } finally {
            sc.stop();
        }
    }
}
