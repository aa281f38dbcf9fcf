package io.tarn.spark.shuffle;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Spark standalone cluster of real processes: a master on 127.0.0.1 and workers on 127.0.0.2,
 * 127.0.0.3, ..., each with one core, so executors run on different "hosts" of this machine. Spark
 * launches a speculative copy of a task only on a host where no attempt of it runs, which
 * {@code local-cluster} mode (every executor on one host) never offers.
 */
final class StandaloneSpark implements AutoCloseable {
    private final List<Process> processes = new ArrayList<>();
    private final String masterUrl;

    private StandaloneSpark(String masterUrl) {
        this.masterUrl = masterUrl;
    }

    /** Starts a master and {@code workers} workers from the Spark home failsafe names, logs under {@code logs}. */
    static StandaloneSpark start(int workers, Path logs) throws IOException {
        String home = System.getenv("SPARK_HOME");
        if (home == null || !Files.isDirectory(Path.of(home, "jars"))) {
            throw new IllegalStateException("SPARK_HOME (" + home + ") holds no jars/: run with failsafe (mvn verify)");
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        StandaloneSpark cluster = new StandaloneSpark("spark://127.0.0.1:" + port);
        Files.createDirectories(logs);
        try {
            cluster.launch(home, logs.resolve("master.log"), "org.apache.spark.deploy.master.Master", "--host",
                    "127.0.0.1", "--port", Integer.toString(port), "--webui-port", "0");
            for (int i = 0; i < workers; i++) {
                String host = "127.0.0." + (i + 2);
                cluster.launch(home, logs.resolve("worker-" + i + ".log"), "org.apache.spark.deploy.worker.Worker",
                        "--host", host, "--port", "0", "--webui-port", "0", "--cores", "1", "--memory", "1g",
                        "--work-dir", logs.resolve("work-" + i).toString(), cluster.masterUrl);
            }
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    String masterUrl() {
        return masterUrl;
    }

    private void launch(String home, Path log, String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx512m", "-cp", home + "/jars/*"));
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (option.startsWith("--add-opens") || option.startsWith("-Dio.netty")) {
                command.add(option); // the module openings Spark needs on JDK 17, as this JVM has them
            }
        }
        command.add(mainClass);
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("SPARK_HOME", home);
        pb.environment().remove("SPARK_LOCAL_IP"); // each process binds the address it is given
        processes.add(pb.start());
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
