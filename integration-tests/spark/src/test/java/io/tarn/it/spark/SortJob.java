package io.tarn.it.spark;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

import java.util.ArrayList;
import java.util.List;

/**
 * The Spark side of the sort test, as a compiled class with static functions (Spark serializes them
 * to its tasks; a lambda capturing a test instance would drag the test along).
 */
final class SortJob {
    private SortJob() {
    }

    /** Generates {@code partitions × perPartition} random records and writes them under {@code dir}. */
    static void generate(JavaSparkContext sc, String dir, int partitions, int perPartition) {
        List<Integer> indexes = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            indexes.add(p);
        }
        JavaRDD<byte[]> records = sc.parallelize(indexes, partitions)
                .flatMap(p -> RandomRecords.partition(p, perPartition));
        save(records, dir, sc.hadoopConfiguration());
    }

    /**
     * Reads the records under {@code input}, sorts them by key into {@code partitions} ranges, writes
     * them to {@code output}.
     */
    static void sort(JavaSparkContext sc, String input, String output, int partitions) {
        JavaPairRDD<byte[], byte[]> keyed = sc.binaryRecords(input, RandomRecords.RECORD_BYTES)
                .mapToPair(r -> new Tuple2<>(RandomRecords.key(r), r));
        JavaRDD<byte[]> sorted = keyed.sortByKey(new RandomRecords.KeyOrder(), true, partitions).values();
        save(sorted, output, sc.hadoopConfiguration());
    }

    private static void save(JavaRDD<byte[]> records, String dir, Configuration conf) {
        records.mapToPair(r -> new Tuple2<>(NullWritable.get(), new BytesWritable(r)))
                .saveAsNewAPIHadoopFile(dir, NullWritable.class, BytesWritable.class, RawRecordOutputFormat.class,
                        conf);
    }
}
