package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A transient fault while reduce tasks read: both datanodes are stopped with SIGSTOP as the reduce
 * stage starts and resumed with SIGCONT 2.5 s later. Reads time out ({@code tarn.rpc.timeout} is 1 s
 * here), the reader tries them again ({@code spark.shuffle.tarn.read.retries}), and the job finishes
 * with the right answer, without a fetch failure and without running a map task again.
 */
class PausedDatanodesIT {
    private static final int RECORDS = 200_000;
    private static final int KEYS = 1_000;
    private static final long PAUSE_MS = 2_500;

    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;

    @BeforeAll
    static void startTarn() throws IOException {
        tarn = TestJobs.startTarn(2, Map.of("tarn.datanode.dram.capacity", "256m"));
    }

    @AfterAll
    static void stopTarn() throws IOException {
        if (tarn != null) {
            signalDatanodes("CONT"); // whatever happened, never leave them stopped
        }
        TestJobs.stop(tarn);
    }

    private static void signalDatanodes(String signal) throws IOException {
        for (int i = 0; i < 2; i++) {
            String pid = Files.readString(tarn.runDir().resolve("datanode-" + i + ".pid")).trim();
            try {
                int exit = new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start().waitFor();
                assertThat(exit).as("kill -%s %s", signal, pid).isZero();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
    }

    @Test
    void readsThatTimeOutWhileTheDatanodesArePausedAreTriedAgainAndTheJobFinishes() throws Exception {
        SparkConf conf = TestJobs.onTarn(TestJobs.conf("local[2]", "PausedDatanodesIT", localDir), tarn,
                tarn.uri() + "/spark-shuffle")
                .set("spark.hadoop.fs.tarn.client.shortcircuit", "off") // reads go to the datanodes over TCP
                .set("spark.hadoop.fs.tarn.rpc.timeout", "1000")
                .set(ReadRetries.RETRIES_KEY, "5")
                .set(ReadRetries.WAIT_KEY, "500ms");
        JavaSparkContext sc = new JavaSparkContext(conf);
        try {
            List<SparkListenerTaskEnd> ends = new CopyOnWriteArrayList<>();
            AtomicBoolean paused = new AtomicBoolean();
            sc.sc().addSparkListener(new SparkListener() {
                @Override
                public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
                    if (submitted.stageInfo().attemptNumber() == 0 && !submitted.stageInfo().rddInfos().isEmpty()
                            && submitted.stageInfo().parentIds().nonEmpty() && paused.compareAndSet(false, true)) {
                        pauseForAWhile();
                    }
                }

                @Override
                public void onTaskEnd(SparkListenerTaskEnd end) {
                    ends.add(end);
                }
            });
            JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, RECORDS).boxed().toList(), 4)
                    .mapToPair(i -> new Tuple2<>(i % KEYS, (long) i)).reduceByKey(Long::sum, 4);
            long started = System.nanoTime();
            Map<Integer, Long> got = new TreeMap<>(sums.collectAsMap());
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

            Map<Integer, Long> want = new TreeMap<>();
            for (int i = 0; i < RECORDS; i++) {
                want.merge(i % KEYS, (long) i, Long::sum);
            }
            assertThat(paused).as("the datanodes were paused as the reduce stage started").isTrue();
            assertThat(got).isEqualTo(want);
            assertThat(millis).as("the job waited out the pause").isGreaterThanOrEqualTo(PAUSE_MS);
            assertThat(ends).as("no task failed").allMatch(e -> e.taskInfo().successful());
            assertThat(ends.stream().filter(e -> "ShuffleMapTask".equals(e.taskType())).count())
                    .as("map tasks, none run twice").isEqualTo(4);
        } finally {
            sc.stop();
        }
    }

    /** SIGSTOP to both datanodes now, SIGCONT {@link #PAUSE_MS} later. */
    private static void pauseForAWhile() {
        try {
            signalDatanodes("STOP");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Thread resume = new Thread(() -> {
            try {
                Thread.sleep(PAUSE_MS);
                signalDatanodes("CONT");
            } catch (InterruptedException | IOException e) {
                throw new IllegalStateException(e);
            }
        }, "resume-datanodes");
        resume.setDaemon(true);
        resume.start();
    }
}
