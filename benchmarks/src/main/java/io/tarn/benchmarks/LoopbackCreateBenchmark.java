package io.tarn.benchmarks;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Create and close over loopback TCP, on the same kind of cluster as {@link LoopbackRpcBenchmark}
 * ({@link LoopbackCluster}): one synchronous {@code create(path).close()} of a new empty file per
 * operation (a CREATE and a CLOSE round trip, one after the other). Every operation adds a file, so the namespace grows
 * during the run. Reports CPU time per operation like the other loopback benchmarks; reading the
 * clocks around every operation costs a few microseconds of the client's time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseParallelGC"})
public class LoopbackCreateBenchmark {
    LoopbackCluster loopback;
    TarnClient client;
    NamenodeCpu cpu;
    long created;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        loopback = LoopbackCluster.start();
        client = loopback.client;
        cpu = loopback.namenodeCpu;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (loopback != null) {
            loopback.close();
        }
    }

    /** Creates {@code /created/file-<n>} empty and closes it; returns its path. */
    @Benchmark
    public String createClose(CpuCounters counters) throws IOException {
        counters.begin(cpu);
        String path = "/created/file-" + created++;
        client.create(path, CreateOptions.DEFAULT).close();
        counters.end(cpu, 1);
        return path;
    }
}
