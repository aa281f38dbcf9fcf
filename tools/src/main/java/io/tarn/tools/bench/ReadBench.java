package io.tarn.tools.bench;

import io.tarn.client.TarnClient;
import io.tarn.client.TarnInputStream;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * {@code readSequential}, {@code readSequentialAsync} and {@code readRandom} over a file written
 * earlier (by {@code -t write} at the same {@code -f}).
 *
 * <p>{@code readSequential} reads {@code k} buffers of {@code s} bytes through the stream from the
 * start (with the client's read-ahead), wrapping around to the start at the end of the file.
 * {@code readSequentialAsync} issues the same sequence of {@code s}-byte reads with
 * {@link TarnInputStream#readAsync}, keeping {@code b} in flight, each into its own buffer.
 * {@code readRandom} reads {@code k} buffers at random {@code s}-aligned offsets with positional
 * reads.
 */
final class ReadBench implements Workload {
    /** How the file is read. */
    enum Mode { SEQUENTIAL, SEQUENTIAL_ASYNC, RANDOM }

    private final TarnClient client;
    private final BenchParams params;
    private final Mode mode;
    private final boolean random;
    private BlockingQueue<ByteBuffer> pool;
    private long fileSize;
    private TarnInputStream in;
    private ByteBuffer buffer;
    private byte[] array;
    private Random offsets;

    ReadBench(TarnClient client, BenchParams params, Mode mode) {
        this.client = client;
        this.params = params;
        this.mode = mode;
        this.random = mode == Mode.RANDOM;
    }

    @Override
    public void setUp() throws IOException {
        fileSize = BenchFiles.existingFile(client, params.path(), mode == Mode.SEQUENTIAL ? 1 : params.size()).size();
        buffer = ByteBuffer.allocateDirect(params.size());
        array = new byte[params.size()];
        offsets = new Random(42);
        if (mode == Mode.SEQUENTIAL_ASYNC) {
            pool = new ArrayBlockingQueue<>(params.inflight());
            for (int i = 0; i < params.inflight(); i++) {
                pool.add(ByteBuffer.allocateDirect(params.size()));
            }
        }
    }

    @Override
    public void beforeRun(long ops) throws IOException {
        in = client.open(params.path());
    }

    @Override
    public void run(long ops, Meter meter) throws IOException {
        if (mode == Mode.SEQUENTIAL_ASYNC) {
            runAsync(ops, meter);
            return;
        }
        if (random) {
            long slots = fileSize / params.size();
            for (long i = 0; i < ops; i++) {
                long pos = (long) (offsets.nextDouble() * slots) * params.size();
                long start = System.nanoTime();
                in.readFully(pos, array, 0, params.size());
                meter.record(start, params.size());
            }
            return;
        }
        for (long i = 0; i < ops; i++) {
            long start = System.nanoTime();
            buffer.clear();
            int n = in.read(buffer);
            if (n < 0) {
                in.seek(0);
                n = in.read(buffer);
            }
            meter.record(start, Math.max(n, 0));
        }
    }

    /** {@code b} positional reads in flight, walking the file in order and wrapping at its end. */
    private void runAsync(long ops, Meter meter) throws IOException {
        long slots = Math.max(1, fileSize / params.size());
        try {
            AsyncDriver.run(ops, params.inflight(), params.size(), meter, i -> {
                ByteBuffer buf = pool.poll();
                buf.clear();
                return in.readAsync((i % slots) * params.size(), buf).whenComplete((n, e) -> pool.add(buf));
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
    }

    @Override
    public void afterRun() {
        in.close();
    }
}
