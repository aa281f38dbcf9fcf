package io.tarn.client.cli.bench;

import io.tarn.client.TarnClient;
import io.tarn.client.TarnInputStream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;

/**
 * {@code readSequential}, {@code readSequentialAsync} and {@code readRandom} over a file written
 * earlier (by {@code -t write} at the same {@code -f}).
 *
 * <p>Sequential types read {@code k} buffers of {@code s} bytes from the start, wrapping around to the
 * start at the end of the file. {@code readSequentialAsync} is the same loop with the client's
 * read-ahead window set to {@code b × s}, so that {@code b} reads are in flight while the caller
 * consumes one (the stream API has no separate asynchronous read call). {@code readRandom} reads
 * {@code k} buffers at random {@code s}-aligned offsets with positional reads.
 */
final class ReadBench implements Workload {
    private final TarnClient client;
    private final BenchParams params;
    private final boolean random;
    private long fileSize;
    private TarnInputStream in;
    private ByteBuffer buffer;
    private byte[] array;
    private Random offsets;

    ReadBench(TarnClient client, BenchParams params, boolean random) {
        this.client = client;
        this.params = params;
        this.random = random;
    }

    @Override
    public void setUp() throws IOException {
        fileSize = BenchFiles.existingFile(client, params.path(), random ? params.size() : 1).size();
        buffer = ByteBuffer.allocateDirect(params.size());
        array = new byte[params.size()];
        offsets = new Random(42);
    }

    @Override
    public void beforeRun(long ops) throws IOException {
        in = client.open(params.path());
    }

    @Override
    public void run(long ops, Meter meter) throws IOException {
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

    @Override
    public void afterRun() {
        in.close();
    }
}
