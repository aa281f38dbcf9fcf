package io.tarn.tools;

import io.tarn.common.config.TarnConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * Runs one daemon in the foreground until the JVM is asked to stop (SIGTERM, SIGINT): a shutdown hook
 * closes the daemon so that it leaves cleanly (datanodes free their memory, connections close), then
 * the JVM exits. {@code tarn stop} relies on this and only falls back to SIGKILL after a timeout.
 */
abstract class DaemonCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(DaemonCommand.class);

    @Spec
    private CommandSpec spec;

    /** Starts the daemon; it serves on its own threads until closed. */
    protected abstract AutoCloseable start(TarnConfig config) throws IOException, InterruptedException;

    /** Adjusts the configuration before start (e.g. per-index ports); identity by default. */
    protected TarnConfig configure(TarnConfig config) {
        return config;
    }

    @Override
    public final Integer call() throws Exception {
        TarnConfig config = configure(TarnCli.of(spec).config());
        AutoCloseable daemon = start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(daemon, stopped), "tarn-shutdown"));
        // The daemon's threads serve; this one only keeps the process in the foreground.
        stopped.await();
        return 0;
    }

    private void stop(AutoCloseable daemon, CountDownLatch stopped) {
        LOG.info("stopping {}", spec.name());
        try {
            daemon.close();
            LOG.info("{} stopped", spec.name());
        } catch (Exception e) {
            LOG.warn("{} did not stop cleanly: {}", spec.name(), ErrorReporter.describe(e));
        } finally {
            stopped.countDown();
        }
    }
}
