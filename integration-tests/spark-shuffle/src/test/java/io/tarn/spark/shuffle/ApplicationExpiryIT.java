package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A driver that dies leaves nothing behind for long: with {@code tarn.namenode.expire.dirs} on the
 * shuffle root (4 s here), the namenode deletes the application directory of a driver process
 * killed with SIGKILL a few seconds after it stopped renewing it, while a live application, whose
 * driver renews its directory every half second, keeps its shuffle across a pause longer than the time
 * to live and reads it again without rerunning a map.
 */
class ApplicationExpiryIT {
    private static final String ROOT = "/expiring-shuffle";

    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;
    private static FileSystem fs;

    @BeforeAll
    static void start() throws IOException {
        tarn = TestJobs.startTarn(1, Map.of("tarn.namenode.expire.dirs", ROOT + "=4s"));
        fs = TestJobs.fileSystem(tarn);
    }

    @AfterAll
    static void stop() throws IOException {
        if (fs != null) {
            fs.close();
        }
        TestJobs.stop(tarn);
    }

    private static String root() {
        return tarn.uri().resolve(ROOT).toString();
    }

    @Test
    void theDirectoryOfAKilledDriverExpires() throws Exception {
        List<String> command = new ArrayList<>(TestJobs.javaCommand(System.getProperty("java.class.path"),
                AbandonedDriver.class.getName(), root(), localDir.resolve("abandoned").toString(),
                TarnShuffleDriverComponents.RENEW_KEY + "=500ms"));
        tarn.clientKeys().forEach((k, v) -> command.add("spark.hadoop.fs." + k + "=" + v));
        Process driver = new ProcessBuilder(command).redirectError(localDir.resolve("abandoned.log").toFile())
                .start();
        String appId;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(driver.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).as("the driver's first line (its log is abandoned.log)").startsWith("READY ");
            appId = line.split(" ")[1];
            assertThat(line.split(" ")[2]).isEqualTo("7");
        } finally {
            driver.destroyForcibly(); // SIGKILL: no cleanupApplication
            driver.waitFor(30, TimeUnit.SECONDS);
        }
        Path app = new Path(root(), appId);
        long killed = System.nanoTime();
        assertThat(fs.exists(app)).as("the killed driver's directory, just after the kill").isTrue();
        assertThat(fs.listStatus(app)).isNotEmpty(); // its shuffle's directory
        long deadline = killed + TimeUnit.SECONDS.toNanos(30);
        while (fs.exists(app) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(fs.exists(app)).as("%s 30 s after its driver was killed", app).isFalse();
        assertThat(fs.exists(new Path(root()))).isTrue();
    }

    @Test
    void aLiveApplicationKeepsItsShuffleAcrossAPauseLongerThanTheTimeToLive() throws Exception {
        SparkConf conf = TestJobs.onTarn(TestJobs.conf("local[2]", "ApplicationExpiryIT", localDir), tarn, root())
                .set(TarnShuffleDriverComponents.RENEW_KEY, "500ms");
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
            JavaPairRDD<Integer, Integer> sums = sc.parallelize(IntStream.range(0, 10_000).boxed().toList(), 3)
                    .mapToPair(i -> new Tuple2<>(i % 10, i)).reduceByKey(Integer::sum, 2);
            Map<Integer, Integer> first = sums.collectAsMap();
            assertThat(first).hasSize(10);
            Path app = new Path(root(), sc.sc().applicationId());
            Thread.sleep(9_000); // more than twice the time to live, without a job
            assertThat(fs.exists(app)).as("a live application's directory after 9 s").isTrue();
            AtomicInteger tasks = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            sc.sc().addSparkListener(new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd end) {
                    tasks.incrementAndGet();
                    if (!end.taskInfo().successful()) {
                        failed.incrementAndGet();
                    }
                }
            });
            assertThat(sums.collectAsMap()).isEqualTo(first); // read again from Tarn
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (tasks.get() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50); // the listener bus delivers after the job
            }
            Thread.sleep(300);
            assertThat(tasks.get()).as("tasks of the second job: its 2 reduce tasks, no map rerun").isEqualTo(2);
            assertThat(failed.get()).isZero();
        }
    }
}
