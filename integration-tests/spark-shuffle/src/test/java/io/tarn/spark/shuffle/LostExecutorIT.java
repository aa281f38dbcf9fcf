package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.ShuffleMapTask;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reason for shuffle on Tarn: in {@code local-cluster[2,1,1024]} (two executor processes), an
 * executor that ran map tasks is killed with SIGKILL after the map stage; the next job on the same
 * shuffle reads every map's output from Tarn and reruns no map task, and its result is right. Stock
 * Spark, in the same run, reruns the maps whose output died with the executor.
 */
class LostExecutorIT {
    private static final int RECORDS = 400_000;
    private static final int KEYS = 5_000;
    private static final int MAPS = 8;

    @TempDir
    static Path localDir;

    private static LocalCluster tarn;

    @BeforeAll
    static void startTarn() throws IOException {
        tarn = TestJobs.startTarn(2, Map.of("tarn.datanode.dram.capacity", "256m"));
    }

    @AfterAll
    static void stopTarn() throws IOException {
        TestJobs.stop(tarn);
    }

    /** What one run saw: map tasks per job, the executors that ran them, the result. */
    private record Run(int mapsInFirstJob, int mapsRerun, String killed, Map<Integer, Long> result) {
    }

    @Test
    void noMapTaskRunsAgainWhenTheExecutorThatWroteItsOutputIsKilled() throws Exception {
        Run onTarn = run(true);
        assertThat(onTarn.mapsInFirstJob()).isEqualTo(MAPS);
        assertThat(onTarn.result()).isEqualTo(expected());
        assertThat(onTarn.mapsRerun()).as("map tasks run again after executor %s was killed", onTarn.killed())
                .isZero();

        Run stock = run(false);
        assertThat(stock.result()).isEqualTo(expected());
        assertThat(stock.mapsRerun()).as("stock Spark: map tasks run again after executor %s was killed",
                stock.killed()).isPositive();
    }

    private static Map<Integer, Long> expected() {
        Map<Integer, Long> sums = new TreeMap<>();
        for (int i = 0; i < RECORDS; i++) {
            sums.merge(i % KEYS, (long) i, Long::sum);
        }
        return sums;
    }

    private Run run(boolean onTarn) throws Exception {
        SparkConf conf = TestJobs.cluster("local-cluster[2,1,1024]", "LostExecutorIT-" + (onTarn ? "tarn" : "stock"),
                localDir);
        if (onTarn) {
            TestJobs.onTarn(conf, tarn, tarn.uri() + "/spark-shuffle");
        }
        JavaSparkContext sc = new JavaSparkContext(conf);
        try {
            Tasks tasks = new Tasks();
            sc.sc().addSparkListener(tasks);
            TestJobs.awaitExecutors(sc, 2);
            JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, RECORDS).boxed().toList(), MAPS)
                    .mapToPair(i -> new Tuple2<>(i % KEYS, (long) i)).reduceByKey(Long::sum, 4);
            assertThat(sums.count()).isEqualTo(KEYS);
            int first = tasks.mapTasks.get();
            String victim = tasks.mapExecutors.get(0);

            kill(sc.sc().applicationId(), victim);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!tasks.removed.contains(victim)) {
                assertThat(System.nanoTime()).as("executor %s not reported lost within 60 s", victim)
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
            tasks.mapTasks.set(0);
            Map<Integer, Long> result = new TreeMap<>(sums.collectAsMap());
            return new Run(first, tasks.mapTasks.get(), victim, result);
        } finally {
            sc.stop();
        }
    }

    /** SIGKILL to the executor process of this application and id, a child of the worker in this JVM. */
    private static void kill(String appId, String executorId) {
        List<ProcessHandle> found = ProcessHandle.current().descendants().filter(p -> {
            Optional<String[]> args = p.info().arguments();
            if (args.isEmpty()) {
                return false;
            }
            List<String> a = List.of(args.get());
            int i = a.indexOf("--executor-id");
            return a.contains("org.apache.spark.executor.CoarseGrainedExecutorBackend") && a.contains(appId) && i >= 0
                    && i + 1 < a.size() && a.get(i + 1).equals(executorId);
        }).toList();
        assertThat(found).as("the process of executor %s", executorId).hasSize(1);
        assertThat(found.get(0).destroyForcibly()).isTrue();
        found.get(0).onExit().join();
    }

    /** Counts finished map tasks and remembers which executors ran them and which were removed. */
    private static final class Tasks extends SparkListener {
        final AtomicInteger mapTasks = new AtomicInteger();
        final List<String> mapExecutors = new CopyOnWriteArrayList<>();
        final Set<String> removed = ConcurrentHashMap.newKeySet();

        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            if (ShuffleMapTask.class.getSimpleName().equals(end.taskType())) {
                mapTasks.incrementAndGet();
                mapExecutors.add(end.taskInfo().executorId());
            }
        }

        @Override
        public void onExecutorRemoved(SparkListenerExecutorRemoved removedEvent) {
            removed.add(removedEvent.executorId());
        }
    }
}
