package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A shuffle larger than the whole Tarn cluster: map attempts fail with Tarn's {@code NO_SPACE} error
 * ({@code local[2,2]}: each task is tried twice), the job fails with it, and a failed attempt leaves
 * neither an index (its output is never taken for whole) nor, having been aborted, its data file.
 */
class FullTarnIT {
    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;

    @BeforeAll
    static void startTarn() throws IOException {
        // One datanode of 32 MiB: the shuffle below needs about 100 MB.
        tarn = TestJobs.startTarn(1, Map.of("tarn.datanode.dram.capacity", "32m",
                "tarn.datanode.dram.region.size", "16m"));
    }

    @AfterAll
    static void stopTarn() throws IOException {
        TestJobs.stop(tarn);
    }

    /** The files in the shuffle directories under {@code app}. */
    private static List<String> leftIn(FileSystem fs, Path app) throws IOException {
        List<String> left = new ArrayList<>();
        if (fs.exists(app)) {
            for (FileStatus shuffle : fs.listStatus(app)) {
                for (FileStatus f : fs.listStatus(shuffle.getPath())) {
                    left.add(f.getPath().getName());
                }
            }
        }
        return left;
    }

    /** The files that are not one of a data file and its index. */
    private static List<String> unpaired(List<String> files) {
        List<String> odd = new ArrayList<>();
        for (String f : files) {
            String base = f.endsWith(".data") ? f.substring(0, f.length() - 5)
                    : f.endsWith(".index") ? f.substring(0, f.length() - 6) : null;
            if (base == null || !files.contains(base + ".data") || !files.contains(base + ".index")) {
                odd.add(f);
            }
        }
        return odd;
    }

    @Test
    void aFullClusterFailsTheMapTasksWithItsErrorAndLeavesNoIndex() throws Exception {
        String root = tarn.uri() + "/spark-shuffle";
        SparkConf conf = TestJobs.onTarn(TestJobs.conf("local[2,2]", "FullTarnIT", localDir), tarn, root)
                .set("spark.shuffle.compress", "false");
        JavaSparkContext sc = new JavaSparkContext(conf);
        try {
            assertThatThrownBy(() -> sc.parallelize(IntStream.range(0, 100).boxed().toList(), 4)
                    .mapToPair(i -> {
                        byte[] noise = new byte[1 << 20];
                        new Random(i).nextBytes(noise); // incompressible, 1 MiB per record
                        return new Tuple2<>(i, noise);
                    }).groupByKey(4).count())
                    .hasStackTraceContaining("NoSpaceException")
                    .hasStackTraceContaining("no free block on any live datanode");

            // A failed attempt leaves nothing: no data file without its index, nothing pending. (An attempt that
            // found room once others had given theirs back may have committed: its output is whole.) Attempts
            // still running when the job failed are killed, and abort on their own threads.
            FileSystem fs = new Path(root).getFileSystem(sc.hadoopConfiguration());
            Path app = new Path(root, sc.sc().applicationId());
            long deadline = System.nanoTime() + 30_000_000_000L;
            List<String> unpaired = unpaired(leftIn(fs, app));
            while (!unpaired.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100);
                unpaired = unpaired(leftIn(fs, app));
            }
            assertThat(unpaired).as("files of failed attempts, in %s", leftIn(fs, app)).isEmpty();
        } finally {
            sc.stop();
        }
    }
}
