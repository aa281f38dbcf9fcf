package io.tarn.it.compare;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnInputStream;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.TarnConfig;
import io.tarn.it.servers.TarnServers;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Tarn's side: a namenode and one DRAM datanode in this JVM (their own class loader, through
 * {@link TarnServers}), reached with {@link TarnClient} from the shaded adapter jar, the client
 * Hadoop and Spark jobs use. getFile is {@code getStatusAsync} with that many calls outstanding on
 * the client's one namenode connection; create + close is blocking, one thread per file in flight,
 * like HDFS's side. The datanode has room for the sequential file plus slack.
 */
final class TarnSide implements StorageSide {
    private static final long REGION_MB = 16;
    private static final String ROOT = "/compare";
    private static final String STATUS_FILE = ROOT + "/getfile";
    private static final String DATA_FILE = ROOT + "/sequential";
    private static final CreateOptions NEW_FILE = new CreateOptions(false, false, -1);

    private final TarnServers servers;
    private final TarnClient client;
    private final long datanodeMb;
    private int createRuns;

    private TarnSide(TarnServers servers, TarnClient client, long datanodeMb) {
        this.servers = servers;
        this.client = client;
        this.datanodeMb = datanodeMb;
    }

    static TarnSide start(CompareSettings settings) throws IOException {
        long datanodeMb = roundUp(Math.max(1024, settings.sizeMb() + 256L), REGION_MB);
        TarnServers servers = TarnServers.start(1, Map.of(
                "tarn.datanode.dram.capacity", datanodeMb + "m",
                "tarn.datanode.dram.region.size", REGION_MB + "m"));
        try {
            TarnConfig config = TarnConfig.builder()
                    .set("tarn.namenode.address", servers.uri().getHost() + ":" + servers.uri().getPort())
                    .build();
            TarnClient client = TarnClient.connect(config);
            client.mkdirs(ROOT);
            client.create(STATUS_FILE, NEW_FILE).close();
            return new TarnSide(servers, client, datanodeMb);
        } catch (IOException | RuntimeException e) {
            servers.close();
            throw e;
        }
    }

    @Override
    public String description() {
        return "Tarn (1 namenode, 1 DRAM datanode of " + datanodeMb + " MiB, TCP; TarnClient from the shaded adapter)";
    }

    @Override
    public LoadResult getFile(int inflight, CompareSettings s) throws IOException, InterruptedException {
        return LoadDriver.async(inflight, s.warmupSeconds(), s.seconds(), i -> client.getStatusAsync(STATUS_FILE));
    }

    @Override
    public LoadResult createClose(int inflight, CompareSettings s) throws IOException, InterruptedException {
        String dir = ROOT + "/create-" + inflight + "-" + createRuns++;
        client.mkdirs(dir);
        return LoadDriver.threads(inflight, s.warmupSeconds(), s.seconds(),
                (t, i) -> client.create(dir + "/f-" + t + "-" + i, NEW_FILE).close());
    }

    @Override
    public double writeSequential(long bytes) throws IOException {
        ByteBuffer buffer = SequentialData.directBuffer();
        long start = System.nanoTime();
        try (TarnOutputStream out = client.create(DATA_FILE, CreateOptions.OVERWRITE)) {
            for (long written = 0; written < bytes; written += buffer.capacity()) {
                out.write(buffer.duplicate());
            }
        }
        return SequentialData.rate(bytes, start);
    }

    @Override
    public double readSequential(long bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(CompareSettings.IO_BUFFER);
        long total = 0;
        long start = System.nanoTime();
        try (TarnInputStream in = client.open(DATA_FILE)) {
            int n;
            while ((n = in.read(buffer.clear())) >= 0) {
                total += n;
            }
        }
        double rate = SequentialData.rate(total, start);
        SequentialData.checkLength("tarn://" + DATA_FILE, total, bytes);
        return rate;
    }

    @Override
    public void close() throws IOException {
        try {
            client.close();
        } finally {
            servers.close();
        }
    }

    private static long roundUp(long value, long multiple) {
        return (value + multiple - 1) / multiple * multiple;
    }
}
