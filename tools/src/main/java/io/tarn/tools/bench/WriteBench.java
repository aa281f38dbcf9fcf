package io.tarn.tools.bench;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * {@code write} and {@code writeAsync}: (re)creates the file and writes {@code k} buffers of {@code s}
 * bytes. The timed region ends when the file is closed, i.e. when every byte is stored on a datanode.
 * {@code write} times each {@code write()} call; {@code writeAsync} keeps {@code b} writes in flight and
 * times each from issue until its bytes are stored.
 */
final class WriteBench implements Workload {
    private final TarnClient client;
    private final BenchParams params;
    private final boolean async;
    private final ByteBuffer buffer;
    private TarnOutputStream out;

    WriteBench(TarnClient client, BenchParams params, boolean async) {
        this.client = client;
        this.params = params;
        this.async = async;
        this.buffer = BenchFiles.data(params.size());
    }

    @Override
    public void beforeRun(long ops) throws IOException {
        out = client.create(params.path(), CreateOptions.OVERWRITE);
    }

    @Override
    public void run(long ops, Meter meter) throws IOException, InterruptedException {
        if (async) {
            AsyncDriver.run(ops, params.inflight(), params.size(), meter, i -> out.writeAsync(buffer.duplicate()));
        } else {
            for (long i = 0; i < ops; i++) {
                long start = System.nanoTime();
                out.write(buffer.duplicate());
                meter.record(start, params.size());
            }
        }
        out.close();
    }

    @Override
    public void afterRun() throws IOException {
        out.close();
    }
}
