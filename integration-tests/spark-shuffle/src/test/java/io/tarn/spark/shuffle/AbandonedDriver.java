package io.tarn.spark.shuffle;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;

/**
 * A driver that {@link ApplicationExpiryIT} kills: runs a shuffle with the plugin (local mode,
 * files under the root given), prints {@code READY <application id>} and waits to be killed.
 *
 * <p>Usage: {@code AbandonedDriver <shuffle root> <local dir> [key=value ...]} (Spark settings).
 */
public final class AbandonedDriver {
    private AbandonedDriver() {
    }

    public static void main(String[] args) throws Exception {
        SparkConf conf = TestJobs.withPlugin(TestJobs.conf("local[1]", "AbandonedDriver", Path.of(args[1])),
                args[0]);
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            conf.set(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Files.createDirectories(Path.of(args[1]));
        JavaSparkContext sc = new JavaSparkContext(conf);
        long groups = sc.parallelize(IntStream.range(0, 1_000).boxed().toList(), 2)
                .mapToPair(i -> new Tuple2<>(i % 7, i)).reduceByKey(Integer::sum, 2).count();
        System.out.println("READY " + sc.sc().applicationId() + " " + groups);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed
    }
}
