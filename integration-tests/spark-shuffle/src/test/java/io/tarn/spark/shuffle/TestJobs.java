package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Spark settings the tests' jobs share. */
final class TestJobs {
    private TestJobs() {
    }

    /** A job on loopback without its web UI, scratch space under {@code localDir}. */
    static SparkConf conf(String master, String appName, Path localDir) {
        return new SparkConf().setMaster(master).setAppName(appName)
                .set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.local.dir", localDir.resolve("spark-local").toString());
    }

    /**
     * A job whose executors are processes ({@code local-cluster[...]} or a standalone master's URL):
     * they get the plugin's jar, the adapter's and the tests' own (the jobs' functions).
     */
    static SparkConf cluster(String master, String appName, Path localDir) throws ClassNotFoundException {
        return withJars(conf(master, appName, localDir));
    }

    /** Gives the executors of jobs run with {@code conf} the plugin's jar, the adapter's and the tests' own. */
    static SparkConf withJars(SparkConf conf) throws ClassNotFoundException {
        return conf.set("spark.executor.extraJavaOptions", "-Dio.netty.tryReflectionSetAccessible=true")
                .set("spark.jars", String.join(",", jarOf(TarnShuffleDataIO.class), testJar(),
                        jarOf(Class.forName("io.tarn.hadoop.TarnFileSystem"))));
    }

    /** The jar of this module's test classes (the jobs' functions), which Maven builds at package. */
    private static String testJar() {
        String jar = System.getProperty("tarn.spark.jobs.jar", "");
        if (jar.isEmpty() || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("tarn.spark.jobs.jar (" + jar + ") names no jar of the jobs' classes: "
                    + "run the local-cluster tests with failsafe (mvn verify) or bin/tarn-spark-compare");
        }
        return jar;
    }

    private static String jarOf(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation().getPath();
    }

    /** Turns the plugin on, its files under {@code root}, with what a client of {@code tarn} needs. */
    static SparkConf onTarn(SparkConf conf, LocalCluster tarn, String root) throws IOException {
        withPlugin(conf, root);
        tarn.clientKeys().forEach((k, v) -> conf.set("spark.hadoop.fs." + k, v));
        return conf;
    }

    /** Turns the plugin on, its files under {@code root} (none set when null), on any Hadoop file system. */
    static SparkConf withPlugin(SparkConf conf, String root) {
        conf.set("spark.shuffle.manager", TarnShuffleManager.class.getName())
                .set("spark.shuffle.sort.io.plugin.class", TarnShuffleDataIO.class.getName());
        if (root != null) {
            conf.set(ShuffleLayout.ROOT_KEY, root);
        }
        return conf;
    }

    /** A Tarn cluster of real processes: one namenode and {@code datanodes} DRAM datanodes with {@code keys}. */
    static LocalCluster startTarn(int datanodes, Map<String, String> keys) throws IOException {
        return LocalCluster.start(LocalCluster.home(), datanodes, keys);
    }

    /** A Hadoop file system of its own on {@code tarn}, with what a client of it needs. */
    static FileSystem fileSystem(LocalCluster tarn) throws IOException {
        Configuration hadoop = new Configuration();
        tarn.clientKeys().forEach((k, v) -> hadoop.set("fs." + k, v));
        return FileSystem.newInstance(tarn.uri(), hadoop);
    }

    /**
     * The command that starts {@code mainClass} in a JVM of its own with this JVM's Java, the JVM
     * options Spark needs, 512 MiB of heap, {@code classPath} and {@code args}.
     */
    static List<String> javaCommand(String classPath, String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens") || a.startsWith("-Dio.netty")).toList());
        command.addAll(List.of("-Xmx512m", "-cp", classPath, mainClass));
        command.addAll(List.of(args));
        return command;
    }

    /** Stops {@code tarn} (when it started) and drops the cached Hadoop file system of its address. */
    static void stop(LocalCluster tarn) throws IOException {
        if (tarn != null) {
            FileSystem.get(tarn.uri(), new Configuration()).close();
            tarn.close();
        }
    }

    /** Waits until {@code n} executors have registered with the driver. */
    static void awaitExecutors(JavaSparkContext sc, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (sc.sc().getExecutorIds().size() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(n + " executors did not register within 120 s");
            }
            Thread.sleep(100);
        }
    }
}
