package io.tarn.benchmarks;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnInputStream;
import io.tarn.client.TarnOutputStream;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.TarnKeys;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.EOFException;
import java.io.IOException;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Sequential writes and reads of 1 MiB through {@link TarnOutputStream} and {@link TarnInputStream}
 * against a {@link MiniCluster} with one DRAM datanode, over loopback TCP.
 *
 * <p>One operation moves one 1 MiB buffer, so the score in ops/s is MiB/s. {@code write} appends
 * to a file until it holds {@code fileMiB}, then closes it (waiting for the write-behind to drain)
 * and starts the next one over the old (deleted first, so its blocks are reused); the closes are
 * part of the measured time. {@code read} reads a file of {@code fileMiB} written at setup from
 * start to end, seeking back to 0 at the end (read-ahead restarts there). Client settings are the
 * defaults (1 MiB blocks and chunks, 4 MiB read-ahead and write-behind).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseParallelGC"})
public class DataPathBenchmark {
    /** Bytes per operation. */
    public static final int BUFFER = 1 << 20;

    /** Size of the file written or read before starting over, in MiB. */
    @Param({"64"})
    public int fileMiB;

    MiniCluster cluster;
    TarnClient client;
    byte[] buffer;
    TarnOutputStream out;
    int writtenMiB;
    TarnInputStream in;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        // Room for the file being read and the one being written, twice over: four regions of
        // fileMiB each (on /dev/shm, touched only where written).
        long region = Math.min((long) fileMiB << 20, 1L << 30);
        cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.DRAM_CAPACITY, 4 * region)
                .set(TarnKeys.DRAM_REGION_SIZE, region)
                .start();
        client = TarnClient.connect(cluster.config());
        buffer = new byte[BUFFER];
        new Random(42).nextBytes(buffer);
        try (TarnOutputStream o = client.create("/read/file")) {
            for (int i = 0; i < fileMiB; i++) {
                o.write(buffer);
            }
        }
        in = client.open("/read/file");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try {
            if (out != null) {
                out.close();
            }
            if (in != null) {
                in.close();
            }
        } finally {
            if (client != null) {
                client.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /** Writes 1 MiB; every {@code fileMiB} MiB closes the file and starts a new one. */
    @Benchmark
    public long write() throws IOException {
        if (out == null) {
            client.delete("/write/file", false);
            out = client.create("/write/file", CreateOptions.OVERWRITE);
        }
        out.write(buffer);
        long position = out.position();
        if (++writtenMiB == fileMiB) {
            out.close();
            out = null;
            writtenMiB = 0;
        }
        return position;
    }

    /** Reads the next 1 MiB of the file; at its end, seeks back to the start. */
    @Benchmark
    public long read() throws IOException {
        if (in.position() == in.length()) {
            in.seek(0);
        }
        readFully(in, buffer);
        return in.position();
    }

    private static void readFully(TarnInputStream in, byte[] b) throws IOException {
        int at = 0;
        while (at < b.length) {
            int n = in.read(b, at, b.length - at);
            if (n < 0) {
                throw new EOFException("file ended after " + at + " of " + b.length + " bytes");
            }
            at += n;
        }
    }
}
