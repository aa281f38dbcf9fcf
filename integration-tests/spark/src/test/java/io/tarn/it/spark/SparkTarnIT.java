package io.tarn.it.spark;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spark 4.2 ({@code local[2]}, Scala 2.13, Java API) on tarn://, on a Spark installation's class
 * path plus the shaded adapter jar. Spark's own scratch space ({@code spark.local.dir}, shuffle
 * files) stays on local disk; every data set lives on Tarn.
 *
 * <p>Proves that Spark's Hadoop committers (RDD and SQL) work on tarn://, that Spark reads what it
 * wrote (fixed-length records through FixedLengthInputFormat, Parquet with its footer seeks), and
 * that a TeraSort-like sort comes back complete and ordered, checked outside Spark with the plain
 * Hadoop FileSystem API against records regenerated on the driver.
 */
class SparkTarnIT {
    private static final int PARTITIONS = 4;
    private static final int PER_PARTITION = 25_000; // 100,000 records of 100 bytes = 10 MB

    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;
    private static SparkSession spark;
    private static JavaSparkContext sc;

    @BeforeAll
    static void start() throws IOException {
        tarn = LocalCluster.start(LocalCluster.home(), 2, Map.of("tarn.datanode.dram.capacity", "256m"));
        SparkSession.Builder builder = SparkSession.builder();
        // The cluster authenticates (bin/tarn start's default): jobs name its key as the docs say.
        tarn.clientKeys().forEach((k, v) -> builder.config("spark.hadoop.fs." + k, v));
        spark = builder
                .master("local[2]")
                .appName("SparkTarnIT")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.local.dir", localDir.resolve("spark-local").toString())
                .config("spark.sql.shuffle.partitions", Integer.toString(PARTITIONS))
                .config("spark.hadoop.fs.AbstractFileSystem.tarn.impl", "io.tarn.hadoop.TarnFs")
                .getOrCreate();
        sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    }

    @AfterAll
    static void stop() throws IOException {
        if (spark != null) {
            spark.stop();
        }
        if (tarn != null) {
            FileSystem.get(tarn.uri(), new Configuration()).close();
            tarn.close();
        }
    }

    @Test
    void classPathIsSparksWithTheShadedAdapter() throws Exception {
        assertThat(jarOf(FileSystem.getFileSystemClass("tarn", sc.hadoopConfiguration())))
                .contains("tarn-hdfs-adapter");
        assertThat(jarOf(Configuration.class)).contains("hadoop-client-api");
        assertThat(jarOf(Class.forName("io.netty.channel.Channel"))).doesNotContain("tarn-hdfs-adapter");
        System.out.println("Spark's Netty: " + io.netty.util.Version.identify().get("netty-transport"));
    }

    @Test
    void sortsHundredThousandRecordsOnTarn() throws IOException {
        String base = tarn.uri() + "/spark/sort";
        SortJob.generate(sc, base + "/input", PARTITIONS, PER_PARTITION);
        SortJob.sort(sc, base + "/input", base + "/output", PARTITIONS);

        RandomRecords.Digest expected = regenerated();
        FileSystem fs = FileSystem.get(tarn.uri(), sc.hadoopConfiguration());
        assertThat(readBack(fs, new Path(base + "/input"), false)).hasToString(expected.toString());
        assertThat(readBack(fs, new Path(base + "/output"), true)).hasToString(expected.toString());
        assertThat(fs.exists(new Path(base + "/output/_SUCCESS"))).isTrue();
    }

    @Test
    void dataFrameRoundTripsThroughParquetOnTarn() {
        String base = tarn.uri() + "/spark/parquet";
        Dataset<Row> rows = spark.range(0, 200_000, 1, PARTITIONS)
                .selectExpr("id", "sha2(cast(id as string), 256) as payload");
        rows.write().mode(SaveMode.Overwrite).parquet(base + "/rows");

        Dataset<Row> back = spark.read().parquet(base + "/rows");
        back.orderBy("payload").write().mode(SaveMode.Overwrite).parquet(base + "/sorted");
        Dataset<Row> sorted = spark.read().parquet(base + "/sorted");

        Row want = digest(rows);
        assertThat(digest(back)).isEqualTo(want);
        assertThat(digest(sorted)).isEqualTo(want);
        assertThat(want.getLong(0)).isEqualTo(200_000L);
    }

    /** Count and an order-independent hash sum of all columns. */
    private static Row digest(Dataset<Row> ds) {
        return ds.selectExpr("count(*)", "sum(cast(xxhash64(id, payload) as decimal(38, 0)))").first();
    }

    /** The records the generator produces, digested on the driver without Spark or Tarn. */
    private static RandomRecords.Digest regenerated() {
        RandomRecords.Digest d = new RandomRecords.Digest();
        for (int p = 0; p < PARTITIONS; p++) {
            for (Iterator<byte[]> it = RandomRecords.partition(p, PER_PARTITION); it.hasNext(); ) {
                d.add(it.next(), 0);
            }
        }
        return d;
    }

    /**
     * Reads every part file under {@code dir} in name order with the plain FileSystem API; when
     * {@code sorted}, checks that the keys never decrease across the whole sequence.
     */
    private static RandomRecords.Digest readBack(FileSystem fs, Path dir, boolean sorted) throws IOException {
        FileStatus[] parts = fs.listStatus(dir, p -> p.getName().startsWith("part-"));
        Arrays.sort(parts, Comparator.comparing(s -> s.getPath().getName()));
        assertThat(parts).as("part files in " + dir).isNotEmpty();
        RandomRecords.Digest d = new RandomRecords.Digest();
        RandomRecords.KeyOrder order = new RandomRecords.KeyOrder();
        byte[] previous = null;
        for (FileStatus part : parts) {
            assertThat(part.getLen() % RandomRecords.RECORD_BYTES).as(part.getPath() + " length").isZero();
            byte[] content = new byte[Math.toIntExact(part.getLen())];
            try (FSDataInputStream in = fs.open(part.getPath())) {
                in.readFully(content);
                assertThat(in.read()).as("end of " + part.getPath()).isEqualTo(-1);
            }
            for (int off = 0; off < content.length; off += RandomRecords.RECORD_BYTES) {
                byte[] record = Arrays.copyOfRange(content, off, off + RandomRecords.RECORD_BYTES);
                if (sorted && previous != null) {
                    assertThat(order.compare(previous, record)).as("key order at " + part.getPath() + "@" + off)
                            .isLessThanOrEqualTo(0);
                }
                previous = record;
                d.add(record, 0);
            }
        }
        return d;
    }

    private static String jarOf(Class<?> c) {
        URL location = c.getProtectionDomain().getCodeSource().getLocation();
        return location.getPath();
    }
}
