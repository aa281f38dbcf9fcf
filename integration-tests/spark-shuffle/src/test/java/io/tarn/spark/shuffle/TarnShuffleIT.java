package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spark 4.2 jobs ({@code local[2]}) whose shuffles go through Tarn: reduceByKey (combined on the map
 * side), groupByKey (not combined), sortByKey (sorted by the reader) and repartition (neither),
 * checked against results computed without Spark; every map attempt leaves a data file and an
 * index under {@code spark.shuffle.tarn.root}, and stopping the application removes its directory.
 */
class TarnShuffleIT {
    private static final int RECORDS = 200_000;
    private static final int KEYS = 1_000;

    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;
    private static JavaSparkContext sc;
    private static String root;
    private static FileSystem fs;

    @BeforeAll
    static void start() throws IOException {
        tarn = TestJobs.startTarn(2, Map.of("tarn.datanode.dram.capacity", "256m"));
        root = tarn.uri() + "/spark-shuffle";
        SparkConf conf = TestJobs.onTarn(TestJobs.conf("local[2]", "TarnShuffleIT", localDir), tarn, root);
        sc = new JavaSparkContext(conf);
        fs = new Path(root).getFileSystem(sc.hadoopConfiguration());
    }

    @AfterAll
    static void stop() throws IOException {
        if (sc != null) {
            sc.stop();
        }
        TestJobs.stop(tarn);
    }

    private static JavaPairRDD<Integer, Long> pairs(int partitions) {
        return sc.parallelize(IntStream.range(0, RECORDS).boxed().toList(), partitions)
                .mapToPair(i -> new Tuple2<>((i * 7919) % KEYS, (long) i));
    }

    /** Sum of the values per key, computed without Spark. */
    private static Map<Integer, Long> expectedSums() {
        Map<Integer, Long> sums = new TreeMap<>();
        for (int i = 0; i < RECORDS; i++) {
            sums.merge((i * 7919) % KEYS, (long) i, Long::sum);
        }
        return sums;
    }

    @Test
    void reduceByKeyGroupByKeySortByKeyAndRepartitionGoThroughTarn() throws IOException {
        Map<Integer, Long> want = expectedSums();

        // The shuffled RDDs are kept: once one is garbage, Spark's ContextCleaner drops its shuffle, and the
        // plugin deletes its files (ShuffleLifecycleIT checks that).
        List<Object> kept = new ArrayList<>();
        JavaPairRDD<Integer, Long> reducedRdd = pairs(4).reduceByKey(Long::sum, 3);
        kept.add(reducedRdd);
        Map<Integer, Long> reduced = new TreeMap<>(reducedRdd.collectAsMap());
        assertThat(reduced).isEqualTo(want);

        Map<Integer, Long> grouped = new TreeMap<>();
        JavaPairRDD<Integer, Iterable<Long>> groupedRdd = pairs(4).groupByKey(5);
        kept.add(groupedRdd);
        for (Tuple2<Integer, Iterable<Long>> g : groupedRdd.collect()) {
            long sum = 0;
            for (long v : g._2()) {
                sum += v;
            }
            grouped.put(g._1(), sum);
        }
        assertThat(grouped).isEqualTo(want);

        JavaPairRDD<Integer, Long> sortedRdd = pairs(4).reduceByKey(Long::sum).sortByKey(false, 3);
        kept.add(sortedRdd);
        List<Tuple2<Integer, Long>> sorted = sortedRdd.collect();
        List<Integer> keys = new ArrayList<>();
        sorted.forEach(t -> keys.add(t._1()));
        List<Integer> descending = new ArrayList<>(want.keySet());
        Collections.reverse(descending);
        assertThat(keys).isEqualTo(descending);

        JavaRDD<Integer> spread = sc.parallelize(IntStream.range(0, RECORDS).boxed().toList(), 2).repartition(7);
        kept.add(spread);
        assertThat(spread.getNumPartitions()).isEqualTo(7);
        assertThat(spread.map(i -> (long) i).reduce(Long::sum)).isEqualTo((long) RECORDS * (RECORDS - 1) / 2);

        // Every map attempt of every shuffle left its data file and its index on Tarn.
        Path app = new Path(root, sc.sc().applicationId());
        FileStatus[] shuffles = fs.listStatus(app);
        assertThat(shuffles).as("shuffle directories under " + app).hasSizeGreaterThanOrEqualTo(4);
        for (FileStatus shuffle : shuffles) {
            FileStatus[] files = fs.listStatus(shuffle.getPath());
            long data = Arrays.stream(files).filter(f -> f.getPath().getName().endsWith(".data")).count();
            long index = Arrays.stream(files).filter(f -> f.getPath().getName().endsWith(".index")).count();
            assertThat(data).as("data files in " + shuffle.getPath()).isPositive().isEqualTo(index);
            assertThat(files).as("nothing pending in " + shuffle.getPath())
                    .noneMatch(f -> f.getPath().getName().endsWith(".pending"));
        }
        assertThat(kept).hasSize(4);
    }
}
