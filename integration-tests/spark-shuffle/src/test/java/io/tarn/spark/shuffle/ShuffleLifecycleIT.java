package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the plugin leaves on Tarn and what it says when it is set up wrong: a shuffle Spark drops
 * (as its ContextCleaner does once the shuffle's RDD is gone) loses its directory, a stopped
 * application its own; a job against a Tarn that is not there, or a manager without its storage
 * plugin, or no root at all, fails at start with the setting to fix.
 */
class ShuffleLifecycleIT {
    @TempDir
    static java.nio.file.Path localDir;

    private static LocalCluster tarn;
    private static FileSystem fs;

    @BeforeAll
    static void start() throws IOException {
        tarn = TestJobs.startTarn(1, Map.of());
        fs = TestJobs.fileSystem(tarn);
    }

    @AfterAll
    static void stop() throws IOException {
        if (tarn != null) {
            fs.close();
            tarn.close();
        }
    }

    private static SparkConf conf(String root) throws IOException {
        return TestJobs.onTarn(TestJobs.conf("local[2]", "ShuffleLifecycleIT", localDir), tarn, root);
    }

    /** A shuffle of three maps into two partitions. */
    private static JavaPairRDD<Integer, Integer> counts(JavaSparkContext sc) {
        return sc.parallelize(IntStream.range(0, 10_000).boxed().toList(), 3)
                .mapToPair(i -> new Tuple2<>(i % 10, 1)).reduceByKey(Integer::sum, 2);
    }

    @Test
    void aDroppedShuffleLosesItsDirectoryAndAStoppedApplicationItsOwn() throws Exception {
        Path root = new Path(tarn.uri() + "/jobs/shuffle");
        JavaSparkContext sc = new JavaSparkContext(conf(root.toString()));
        Path app;
        try {
            app = new Path(root, sc.sc().applicationId());
            // Both RDDs stay reachable: once one is garbage, the ContextCleaner would drop its shuffle itself.
            JavaPairRDD<Integer, Integer> a = counts(sc);
            JavaPairRDD<Integer, Integer> b = counts(sc);
            assertThat(a.count()).isEqualTo(10);
            assertThat(b.count()).isEqualTo(10);
            Path first = new Path(app, "0");
            Path second = new Path(app, "1");
            assertThat(fs.listStatus(first)).as("map outputs of shuffle 0").hasSize(6);
            assertThat(fs.exists(second)).isTrue();

            sc.sc().cleaner().get().doCleanupShuffle(0, true); // what the ContextCleaner does
            assertThat(fs.exists(first)).as(first + " after the shuffle was dropped").isFalse();
            assertThat(fs.exists(second)).isTrue();
            assertThat(b.count()).as("shuffle 1, still there, read again").isEqualTo(10);
            assertThat(a.getNumPartitions()).isEqualTo(2);
        } finally {
            sc.stop();
        }
        assertThat(fs.exists(app)).as(app + " after the application stopped").isFalse();
        assertThat(fs.listStatus(root)).isEmpty();
    }

    @Test
    void aTarnThatIsNotThereFailsTheApplicationAtStartNamingTheAddressAndTheSetting() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        String root = "tarn://127.0.0.1:" + port + "/spark-shuffle";
        long started = System.nanoTime();
        assertThatThrownBy(() -> new JavaSparkContext(conf(root)).stop())
                .hasStackTraceContaining(root)
                .hasStackTraceContaining(ShuffleLayout.ROOT_KEY);
        assertThat((System.nanoTime() - started) / 1_000_000_000L).as("seconds to fail").isLessThan(30);
    }

    @Test
    void aManagerWithoutItsStoragePluginOrWithoutARootIsRefusedWithTheFix() throws Exception {
        SparkConf noPlugin = conf(tarn.uri() + "/spark-shuffle").remove("spark.shuffle.sort.io.plugin.class");
        assertThatThrownBy(() -> new JavaSparkContext(noPlugin).stop())
                .hasStackTraceContaining("add --conf spark.shuffle.sort.io.plugin.class="
                        + TarnShuffleDataIO.class.getName());
        assertThatThrownBy(() -> new JavaSparkContext(conf(null)).stop())
                .hasStackTraceContaining("Tarn shuffle needs " + ShuffleLayout.ROOT_KEY);
    }

    @Test
    void aMisspelledPluginClassIsRefusedWithTheFix() throws Exception {
        SparkConf typo = conf(tarn.uri() + "/spark-shuffle").set("spark.shuffle.sort.io.plugin.class",
                "io.tarn.spark.shuffle.TarnShuffleDataI0");
        assertThatThrownBy(() -> new JavaSparkContext(typo).stop())
                .hasStackTraceContaining("add --conf spark.shuffle.sort.io.plugin.class="
                        + TarnShuffleDataIO.class.getName());
    }

    /**
     * A driver whose class path lacks the adapter jar (a forgotten --jars entry) fails at start
     * saying which jar to add: run as a process of its own with the tests' class path minus that jar.
     */
    @Test
    void withoutTheAdapterJarTheDriverFailsAtStartSayingWhichJarToAdd() throws Exception {
        List<String> classPath = new ArrayList<>();
        for (String entry : testClassPath()) {
            if (!entry.contains("tarn-hdfs-adapter")) {
                classPath.add(entry);
            }
        }
        assertThat(classPath).hasSizeLessThan(testClassPath().size());
        String root = tarn.uri() + "/spark-shuffle";
        List<String> command = TestJobs.javaCommand(String.join(File.pathSeparator, classPath),
                AbandonedDriver.class.getName(), root, localDir.resolve("no-adapter").toString());
        java.nio.file.Path log = localDir.resolve("no-adapter.log"); // qualified: Hadoop's Path is imported
        Process driver = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertThat(driver.waitFor(120, TimeUnit.SECONDS)).as("the driver ended").isTrue();
        } finally {
            driver.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(driver.exitValue()).as(output).isNotZero();
        assertThat(output).doesNotContain("READY")
                .contains("cannot reach the shuffle directory " + root)
                .contains("Is the Tarn adapter jar on the class path (spark.jars)");
    }

    /** The entries of this JVM's class path, through the manifest of a class-path-only jar (failsafe's). */
    private static List<String> testClassPath() throws IOException {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.endsWith(".jar")) {
                try (JarFile jar = new JarFile(entry)) {
                    Manifest manifest = jar.getManifest();
                    String listed = manifest == null ? null
                            : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
                    if (listed != null) {
                        for (String url : listed.trim().split("\\s+")) {
                            entries.add(Paths.get(URI.create(url)).toString());
                        }
                        continue;
                    }
                }
            }
            entries.add(entry);
        }
        return entries;
    }
}
