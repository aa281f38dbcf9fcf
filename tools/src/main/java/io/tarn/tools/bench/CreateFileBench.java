package io.tarn.tools.bench;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;

import java.io.IOException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * {@code createFile} and {@code createFileAsync}: each run creates {@code k} files in a fresh directory
 * {@code <f>/run-<n>}; the operation timed is the create call (for the asynchronous type, from issue
 * to the namenode's answer, {@code b} in flight). After the timed region the files are closed empty
 * and, unless {@code --keep}, the run directory is deleted; {@code <f>} itself is deleted at the end
 * when this invocation created it.
 */
final class CreateFileBench implements Workload {
    private static final CreateOptions NO_PARENTS = new CreateOptions(false, false, -1);

    private final TarnClient client;
    private final BenchParams params;
    private final boolean async;
    private final Queue<TarnOutputStream> open = new ConcurrentLinkedQueue<>();
    private boolean createdRoot;
    private int runs;
    private String runDir;

    CreateFileBench(TarnClient client, BenchParams params, boolean async) {
        this.client = client;
        this.params = params;
        this.async = async;
    }

    @Override
    public void setUp() throws IOException {
        createdRoot = !client.exists(params.path());
        client.mkdirs(params.path());
    }

    @Override
    public void beforeRun(long ops) throws IOException {
        runDir = params.path() + "/run-" + System.currentTimeMillis() + "-" + runs++;
        client.mkdirs(runDir);
    }

    @Override
    public void run(long ops, Meter meter) throws IOException, InterruptedException {
        if (async) {
            AsyncDriver.run(ops, params.inflight(), 0, meter,
                    i -> client.createAsync(runDir + "/f-" + i, NO_PARENTS).thenAccept(open::add));
            return;
        }
        for (long i = 0; i < ops; i++) {
            long start = System.nanoTime();
            TarnOutputStream out = client.create(runDir + "/f-" + i, NO_PARENTS);
            meter.record(start, 0);
            open.add(out);
        }
    }

    @Override
    public void afterRun() throws IOException {
        TarnOutputStream out;
        while ((out = open.poll()) != null) {
            out.close();
        }
        if (!params.keep()) {
            client.delete(runDir, true);
        }
    }

    @Override
    public void tearDown() throws IOException {
        if (createdRoot && !params.keep()) {
            client.delete(params.path(), true);
        }
    }
}
