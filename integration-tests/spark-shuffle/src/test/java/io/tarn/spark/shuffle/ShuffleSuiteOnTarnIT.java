package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.spark.ShuffleSuite;
import org.scalactic.source.Position;
import org.scalatest.Tag;
import scala.Function0;
import scala.collection.immutable.Seq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Spark's own {@code ShuffleSuite} (from spark-core's test jar) with the shuffle on Tarn: the suite's
 * jobs, in {@code local} and {@code local-cluster} mode, run with the plugin's manager and storage
 * against a Tarn cluster of real processes. ScalaTest's JUnit Platform engine runs it, so each of
 * its tests is counted as one. The tests left out (reported as skipped), and why, are in
 * {@link #EXCLUDED}: each inspects or damages the executor's local shuffle files, which a shuffle on
 * Tarn does not write.
 */
public class ShuffleSuiteOnTarnIT extends ShuffleSuite {
    /** ShuffleSuite's tests that do not apply to a shuffle kept outside the executors, and why. */
    static final Map<String, String> EXCLUDED = new TreeMap<>(Map.of(
            "shuffle with different compression settings (SPARK-3426)",
            "asserts that the executor's disk block manager holds shuffle files afterwards; on Tarn it holds none",
            "[SPARK-4085] rerun map stage if reduce stage cannot find its local shuffle file",
            "deletes the map output from the executor's local disk to force a rerun; on Tarn it is not there",
            "cannot find its local shuffle file if no execution of the stage and rerun shuffle",
            "asserts that the map output appears on the executor's local disk; on Tarn it never does",
            "SPARK-36206: shuffle checksum detect disk corruption",
            "corrupts the map output in the executor's local files to test Spark's checksums; on Tarn they are not "
                    + "there (Tarn's index has its own CRC32C, ShuffleIndexTest)"));

    private LocalCluster tarn;

    @Override
    public void beforeAll() {
        super.beforeAll();
        try {
            tarn = TestJobs.startTarn(2, Map.of("tarn.datanode.dram.capacity", "512m"));
            TestJobs.withJars(TestJobs.onTarn(conf(), tarn, tarn.uri() + "/spark-shuffle"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void afterAll() {
        try {
            super.afterAll();
        } finally {
            try {
                TestJobs.stop(tarn);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Registers ShuffleSuite's tests as its constructor declares them, those in {@link #EXCLUDED} as
     * ignored: the report lists them as skipped.
     */
    @Override
    public void test(String testName, Seq<Tag> testTags, Function0<Object> testFun, Position pos) {
        if (EXCLUDED.containsKey(testName)) {
            ignore(testName, testTags, testFun, pos);
        } else {
            super.test(testName, testTags, testFun, pos);
        }
    }
}
