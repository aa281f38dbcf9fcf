package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spark SQL with adaptive query execution on Tarn shuffle: small shuffle partitions coalesced into
 * one read of several partitions, and a skewed join whose large partition is split into reads of
 * ranges of maps. Both read partition and map ranges through the plugin's reader; the answers are
 * checked against the same queries without adaptive execution.
 */
class AdaptiveQueryIT {
    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws IOException {
        tarn = TestJobs.startTarn(2, Map.of("tarn.datanode.dram.capacity", "256m"));
        SparkConf conf = TestJobs.onTarn(TestJobs.conf("local[2]", "AdaptiveQueryIT", localDir), tarn,
                tarn.uri() + "/spark-shuffle")
                .set("spark.sql.adaptive.enabled", "true")
                .set("spark.sql.shuffle.partitions", "20")
                .set("spark.sql.adaptive.coalescePartitions.enabled", "true")
                .set("spark.sql.adaptive.advisoryPartitionSizeInBytes", "16k")
                .set("spark.sql.adaptive.skewJoin.enabled", "true")
                .set("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2")
                .set("spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "16k")
                .set("spark.sql.autoBroadcastJoinThreshold", "-1");
        spark = SparkSession.builder().config(conf).getOrCreate();
    }

    @AfterAll
    static void stop() throws IOException {
        if (spark != null) {
            spark.stop();
        }
        TestJobs.stop(tarn);
    }

    /** Runs {@code sql} with adaptive execution off, for the answer to compare with. */
    private static Row plainly(String sql) {
        spark.conf().set("spark.sql.adaptive.enabled", "false");
        try {
            return spark.sql(sql).collectAsList().get(0);
        } finally {
            spark.conf().set("spark.sql.adaptive.enabled", "true");
        }
    }

    @Test
    void coalescedPartitionsAreReadAsOneRangeWithTheSameAnswer() {
        spark.range(0, 50_000, 1, 4).selectExpr("id % 40 as k", "id as v").createOrReplaceTempView("small");
        String sql = "select count(*), sum(s), sum(k * s) from (select k, sum(v) as s from small group by k)";
        Dataset<Row> adaptive = spark.sql(sql);
        Row got = adaptive.collectAsList().get(0); // first() would plan (and adapt) another query
        String plan = adaptive.queryExecution().executedPlan().toString();
        assertThat(plan).as("the final plan").contains("AQEShuffleRead").contains("coalesced");
        assertThat(got).isEqualTo(plainly(sql));
        assertThat(got.getLong(0)).isEqualTo(40L);
    }

    @Test
    void aSkewedJoinIsSplitIntoMapRangesWithTheSameAnswer() {
        // Key 0 holds 60% of the left side's rows: its partition is split by map ranges.
        spark.range(0, 200_000, 1, 8).selectExpr("case when id % 10 < 6 then 0 else id % 1000 end as k",
                "id as v").createOrReplaceTempView("left_side");
        spark.range(0, 1_000, 1, 2).selectExpr("id as k", "id * 3 as w").createOrReplaceTempView("right_side");
        String sql = "select count(*), sum(l.v), sum(r.w) from left_side l join right_side r on l.k = r.k";
        Dataset<Row> adaptive = spark.sql(sql);
        Row got = adaptive.collectAsList().get(0); // first() would plan (and adapt) another query
        String plan = adaptive.queryExecution().executedPlan().toString();
        assertThat(plan).as("the final plan").contains("skew=true");
        assertThat(got).isEqualTo(plainly(sql));
        assertThat(got.getLong(0)).isEqualTo(200_000L);
    }
}
