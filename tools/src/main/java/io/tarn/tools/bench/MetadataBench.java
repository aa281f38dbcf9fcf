package io.tarn.tools.bench;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.common.fs.FileStatus;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * The read-only metadata types, one namenode call per operation:
 * <ul>
 *   <li>{@code getFile}/{@code getFileAsync}: the status of {@code -f}, created empty when missing; with
 *       {@code --files K}, of {@code -f-0} .. {@code -f-(K-1)} in turn;</li>
 *   <li>{@code getBlock}/{@code getBlockAsync}: where block {@code i mod blocks} of {@code -f} lives;
 *       a missing file is first written with {@code s} bytes;</li>
 *   <li>{@code enumerateDir}: the listing of directory {@code -f}, which is created with
 *       {@value #DIR_ENTRIES} empty files when missing and left in place.</li>
 * </ul>
 * Asynchronous variants keep {@code b} calls in flight, each answer's callback issuing the next
 * call (on the client's I/O thread), and time each from issue to answer.
 */
final class MetadataBench implements Workload {
    static final int DIR_ENTRIES = 64;

    /** Which call is measured. */
    enum Call { GET_FILE, GET_BLOCK, ENUMERATE_DIR }

    private final TarnClient client;
    private final BenchParams params;
    private final Call call;
    private final boolean async;
    private long fileId;
    private long blocks;
    /** getFile: the paths looked up in turn. */
    private String[] paths;

    MetadataBench(TarnClient client, BenchParams params, Call call, boolean async) {
        this.client = client;
        this.params = params;
        this.call = call;
        this.async = async;
    }

    @Override
    public void setUp() throws IOException {
        switch (call) {
            case GET_FILE:
                paths = new String[params.files()];
                for (int i = 0; i < paths.length; i++) {
                    paths[i] = paths.length == 1 ? params.path() : params.path() + "-" + i;
                    BenchFiles.ensureFile(client, paths[i], 0);
                }
                break;
            case GET_BLOCK:
                BenchFiles.ensureFile(client, params.path(), params.size());
                FileStatus s = BenchFiles.existingFile(client, params.path(), 1);
                fileId = s.fileId();
                blocks = (s.size() + s.blockSize() - 1) / s.blockSize();
                break;
            case ENUMERATE_DIR:
                populateDirectory();
                break;
            default:
                throw new IllegalStateException(call.toString());
        }
    }

    private void populateDirectory() throws IOException {
        if (client.exists(params.path())) {
            return;
        }
        client.mkdirs(params.path());
        for (int i = 0; i < DIR_ENTRIES; i++) {
            client.create(params.path() + "/f-" + i, new CreateOptions(false, false, -1)).close();
        }
    }

    @Override
    public void run(long ops, Meter meter) throws IOException, InterruptedException {
        if (async) {
            // Lookups never block: each answer's callback issues the next call on the I/O thread.
            AsyncDriver.chained(ops, params.inflight(), 0, meter, this::issue);
            return;
        }
        for (long i = 0; i < ops; i++) {
            long start = System.nanoTime();
            switch (call) {
                case GET_FILE: client.getStatus(paths[(int) (i % paths.length)]); break;
                case GET_BLOCK: client.getBlock(fileId, (int) (i % blocks)); break;
                default: client.list(params.path()); break;
            }
            meter.record(start, 0);
        }
    }

    private CompletableFuture<?> issue(long i) {
        switch (call) {
            case GET_FILE: return client.getStatusAsync(paths[(int) (i % paths.length)]);
            case GET_BLOCK: return client.getBlockAsync(fileId, (int) (i % blocks));
            default: return client.listAsync(params.path());
        }
    }
}
