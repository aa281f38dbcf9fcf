package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shuffle larger than the executor's memory: one executor of 512 MiB sorts 6 million records of
 * 100 bytes (about 640 MB) through Tarn, spilling on both sides. The output is complete (the same
 * order-independent checksum as the input) and ordered, within and across partitions.
 */
class LargeShuffleIT {
    private static final int MAPS = 8;
    private static final int PER_MAP = 750_000;
    private static final int VALUE_BYTES = 92;

    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;

    @BeforeAll
    static void startTarn() throws IOException {
        tarn = TestJobs.startTarn(2, Map.of("tarn.datanode.dram.capacity", "768m",
                "tarn.datanode.dram.region.size", "64m"));
    }

    @AfterAll
    static void stopTarn() throws IOException {
        TestJobs.stop(tarn);
    }

    /** The records of one map: random 8-byte keys, values derived from them. */
    private static Iterator<Tuple2<Long, byte[]>> records(int map) {
        SplittableRandom random = new SplittableRandom(map * 7919L + 1);
        return new Iterator<>() {
            private int left = PER_MAP;

            @Override
            public boolean hasNext() {
                return left > 0;
            }

            @Override
            public Tuple2<Long, byte[]> next() {
                left--;
                long key = random.nextLong();
                byte[] value = new byte[VALUE_BYTES];
                Arrays.fill(value, (byte) key);
                return new Tuple2<>(key, value);
            }
        };
    }

    private static long checksum(Tuple2<Long, byte[]> r) {
        return r._1() * 31 + Arrays.hashCode(r._2());
    }

    @Test
    void sortingMoreThanTheExecutorsMemoryComesBackWholeAndInOrder() throws Exception {
        SparkConf conf = TestJobs.onTarn(TestJobs.cluster("local-cluster[1,1,512]", "LargeShuffleIT", localDir), tarn,
                tarn.uri() + "/spark-shuffle")
                .set("spark.executor.memory", "512m");
        JavaSparkContext sc = new JavaSparkContext(conf);
        try {
            AtomicLong spilled = new AtomicLong();
            sc.sc().addSparkListener(new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd end) {
                    if (end.taskMetrics() != null && "ResultTask".equals(end.taskType())) {
                        spilled.addAndGet(end.taskMetrics().memoryBytesSpilled());
                    }
                }
            });
            JavaPairRDD<Long, byte[]> input = sc.parallelize(IntStream.range(0, MAPS).boxed().toList(), MAPS)
                    .flatMapToPair(LargeShuffleIT::records);
            long want = input.map(LargeShuffleIT::checksum).reduce(Long::sum);

            // Per partition of the sorted output: count, checksum, first and last key, and whether in order.
            List<long[]> parts = input.sortByKey(true, 6).mapPartitions(it -> {
                long count = 0;
                long sum = 0;
                long first = 0;
                long last = Long.MIN_VALUE;
                long ordered = 1;
                while (it.hasNext()) {
                    Tuple2<Long, byte[]> r = it.next();
                    if (count == 0) {
                        first = r._1();
                    } else if (r._1() < last) {
                        ordered = 0;
                    }
                    last = r._1();
                    count++;
                    sum += checksum(r);
                }
                return List.of(new long[] {count, sum, first, last, ordered}).iterator();
            }).collect();

            long count = 0;
            long sum = 0;
            List<Long> bounds = new ArrayList<>();
            for (long[] p : parts) {
                count += p[0];
                sum += p[1];
                assertThat(p[4]).as("partition in order").isEqualTo(1);
                if (p[0] > 0) {
                    bounds.add(p[2]);
                    bounds.add(p[3]);
                }
            }
            assertThat(count).isEqualTo((long) MAPS * PER_MAP);
            assertThat(sum).as("checksum of the sorted records against the input's").isEqualTo(want);
            assertThat(bounds).as("partitions in order of their keys").isSorted();
            assertThat(spilled.get()).as("bytes the reduce side spilled from memory").isPositive();
        } finally {
            sc.stop();
        }
    }
}
