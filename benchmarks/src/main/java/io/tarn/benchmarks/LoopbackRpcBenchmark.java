package io.tarn.benchmarks;

import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;
import io.tarn.minicluster.MiniCluster;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Namenode calls over loopback TCP: a real {@link MiniCluster} (one namenode, one DRAM datanode,
 * one event-loop thread each) and a {@link TarnClient} in the same JVM.
 *
 * <p>{@code getStatusAsync} and {@code getBlockAsync} issue {@value #BATCH} calls per invocation
 * with at most {@code inFlight} outstanding ({@link AsyncWindow}); the score is calls per second.
 * ({@link LoopbackCreateBenchmark} measures create and close on the same kind of cluster.) Both
 * also report the CPU time the namenode's threads and the whole process used ({@link CpuCounters}).
 * Client and servers share the machine's cores, as they do in the peers' figures in the project's
 * facts.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseParallelGC"})
public class LoopbackRpcBenchmark {
    /** Calls per invocation of the windowed benchmarks. */
    public static final int BATCH = 1024;
    /** Files getStatusAsync cycles through (empty). */
    static final int STATUS_FILES = 1024;
    /** Files getBlockAsync cycles through (one byte each, so one block each). */
    static final int BLOCK_FILES = 16;

    /** Calls outstanding at once in the windowed benchmarks. */
    @Param({"1", "16", "64", "128"})
    public int inFlight;

    LoopbackCluster loopback;
    TarnClient client;
    NamenodeCpu cpu;
    AsyncWindow window;
    String[] statusPaths;
    long[] blockFileIds;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        loopback = LoopbackCluster.start();
        client = loopback.client;
        cpu = loopback.namenodeCpu;
        window = new AsyncWindow(inFlight);
        statusPaths = new String[STATUS_FILES];
        for (int i = 0; i < STATUS_FILES; i++) {
            statusPaths[i] = "/status/file-" + i;
            client.create(statusPaths[i]).close();
        }
        blockFileIds = new long[BLOCK_FILES];
        for (int i = 0; i < BLOCK_FILES; i++) {
            String path = "/blocks/file-" + i;
            try (TarnOutputStream out = client.create(path)) {
                out.write(i);
            }
            blockFileIds[i] = client.getStatus(path).fileId();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (loopback != null) {
            loopback.close();
        }
    }

    /** {@value #BATCH} getStatusAsync calls over the prepared files, {@code inFlight} at a time. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getStatusAsync(CpuCounters counters) throws Exception {
        counters.begin(cpu);
        int n = window.run(BATCH, i -> client.getStatusAsync(statusPaths[i & (STATUS_FILES - 1)]));
        counters.end(cpu, n);
        return n;
    }

    /** {@value #BATCH} getBlockAsync (read, block 0) calls over the prepared files, {@code inFlight} at a time. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getBlockAsync(CpuCounters counters) throws Exception {
        counters.begin(cpu);
        int n = window.run(BATCH, i -> client.getBlockAsync(blockFileIds[i & (BLOCK_FILES - 1)], 0));
        counters.end(cpu, n);
        return n;
    }

    /**
     * {@value #BATCH} getStatusAsync calls as {@code inFlight} chains: each answer's callback (on the
     * client's I/O thread) issues that chain's next call, the way streams and listing windows chain
     * their calls, rather than one thread issuing every call.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getStatusChained(CpuCounters counters) throws Exception {
        counters.begin(cpu);
        AtomicInteger issued = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(BATCH);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int c = 0; c < Math.min(inFlight, BATCH); c++) {
            chain(issued, done, failure);
        }
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException("a chained call failed: " + failure.get(), failure.get());
        }
        counters.end(cpu, BATCH);
        return BATCH;
    }

    private void chain(AtomicInteger issued, CountDownLatch done, AtomicReference<Throwable> failure) {
        int i = issued.getAndIncrement();
        if (i >= BATCH) {
            return;
        }
        client.getStatusAsync(statusPaths[i & (STATUS_FILES - 1)]).whenComplete((v, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
            done.countDown();
            chain(issued, done, failure);
        });
    }
}
