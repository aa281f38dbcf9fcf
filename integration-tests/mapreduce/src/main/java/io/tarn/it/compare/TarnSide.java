package io.tarn.it.compare;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnInputStream;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.security.LocalCertificates;
import io.tarn.dist.LocalCluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Tarn's side: a namenode and one DRAM datanode, daemons of their own started by the distribution's
 * {@code bin/tarn start} (through {@link LocalCluster}), reached with {@link TarnClient} from the
 * shaded adapter jar, the client Hadoop and Spark jobs use. getFile is {@code getStatusAsync} with
 * that many calls outstanding on the client's one namenode connection, each answer's callback
 * issuing the next call (as the Netty echo baseline's client does); create + close is blocking, one
 * thread per file in flight, like HDFS's side.
 *
 * <p>Two clients: the one every workload runs on has {@code tarn.client.shortcircuit = off}, so its
 * sequential write and read go over TCP to the datanode; a second one with {@code auto} (the
 * default) writes and reads a file of its own the same way for the {@linkplain #shortCircuit()
 * short-circuit} rows. The datanode keeps its regions in mapped files (MiniCluster puts them under
 * {@code /dev/shm}, or under {@code --dram-root}), so that client, on the same host, copies block
 * data straight from and to them.
 * Each sequential workload checks with {@link TarnClient#shortCircuitBytes()} which path its
 * bytes took, and warns on standard error when the short-circuit client fell back to TCP. Each
 * sequential file is deleted after its read, so the datanode, sized for one file plus slack, never
 * holds both.
 */
final class TarnSide implements StorageSide {
    private static final long REGION_MB = 16;
    private static final String ROOT = "/compare";
    private static final String STATUS_FILE = ROOT + "/getfile";
    private static final String TCP_FILE = ROOT + "/sequential-tcp";
    private static final String SHORT_CIRCUIT_FILE = ROOT + "/sequential-shortcircuit";
    private static final String SHORT_CIRCUIT_KEY = "tarn.client.shortcircuit";
    private static final CreateOptions NEW_FILE = new CreateOptions(false, false, -1);

    private final LocalCluster servers;
    /** {@code tarn.client.shortcircuit = off}: every workload, and the sequential ones over TCP. */
    private final TarnClient client;
    /** {@code tarn.client.shortcircuit = auto}: the short-circuit sequential workloads only. */
    private final TarnClient autoClient;
    private final Sequential tcp;
    private final Sequential shortCircuit;
    private final long datanodeMb;
    private final String regionsIn;
    private final int replicas;
    private int createRuns;

    private TarnSide(LocalCluster servers, TarnClient client, TarnClient autoClient, long datanodeMb,
            String regionsIn, int replicas) {
        this.replicas = replicas;
        this.servers = servers;
        this.client = client;
        this.autoClient = autoClient;
        this.tcp = new Sequential(client, TCP_FILE, false);
        this.shortCircuit = new Sequential(autoClient, SHORT_CIRCUIT_FILE, true);
        this.datanodeMb = datanodeMb;
        this.regionsIn = regionsIn;
    }

    static TarnSide start(CompareSettings settings) throws IOException {
        return start(settings, false);
    }

    /**
     * @param journaled with {@code tarn.namenode.journal = disk}, its journal in the work directory
     *                  (the disk HDFS's edit log is on)
     */
    static TarnSide start(CompareSettings settings, boolean journaled) throws IOException {
        return start(settings, journaled, 1);
    }

    /**
     * @param replicas more than 1: the namespace is served by a replicated group of that many
     *                 namenodes ({@code tarn start -r}), each journaling in the work directory
     */
    static TarnSide start(CompareSettings settings, boolean journaled, int replicas) throws IOException {
        long datanodeMb = roundUp(Math.max(1024, settings.sizeMb() + 256L), REGION_MB);
        Map<String, String> keys = new HashMap<>(Map.of(
                "tarn.datanode.dram.capacity", datanodeMb + "m",
                "tarn.datanode.dram.region.size", REGION_MB + "m"));
        keys.put("tarn.namenode.journal", journaled ? "disk" : "none");
        if (settings.authentication().equals("none")) {
            keys.put("tarn.security.authentication", "none"); // else as bin/tarn start sets it up
        }
        Map<String, String> tls = new HashMap<>();
        if (settings.tls()) {
            LocalCertificates.Made made = LocalCertificates.make(settings.workDir().resolve("tls-" + System.nanoTime()),
                    "node", 2);
            tls.put("tarn.security.tls", "true");
            tls.put("tarn.security.tls.ca", made.ca().toString());
            tls.put("tarn.security.tls.cert", made.cert().toString());
            tls.put("tarn.security.tls.key", made.key().toString());
            keys.putAll(tls);
        }
        if (journaled) {
            keys.put("tarn.namenode.journal.dir", settings.workDir().resolve("tarn-journal-" + System.nanoTime())
                    .toString());
        }
        LocalCluster servers = LocalCluster.start(LocalCluster.home(), 1, keys, settings.dramRoot(), replicas);
        TarnClient client = null;
        try {
            String namenode = servers.uri().getHost() + ":" + servers.uri().getPort();
            Map<String, String> auth = new HashMap<>(servers.clientKeys());
            auth.putAll(tls);
            client = connect(namenode, "off", auth);
            client.mkdirs(ROOT);
            client.create(STATUS_FILE, NEW_FILE).close();
            return new TarnSide(servers, client, connect(namenode, "auto", auth), datanodeMb,
                    settings.dramRoot() == null ? "/dev/shm" : settings.dramRoot().toString(), replicas);
        } catch (IOException | RuntimeException e) {
            try {
                if (client != null) {
                    client.close();
                }
            } finally {
                servers.close();
            }
            throw e;
        }
    }

    private static TarnClient connect(String namenode, String shortCircuit, Map<String, String> auth) {
        return TarnClient.connect(TarnConfig.builder().apply(auth)
                .set("tarn.namenode.address", namenode)
                .set(SHORT_CIRCUIT_KEY, shortCircuit)
                .build());
    }

    @Override
    public String description() {
        return "Tarn (" + (replicas > 1 ? "a replicated group of " + replicas + " namenodes" : "1 namenode")
                + ", 1 DRAM datanode of " + datanodeMb + " MiB in mapped files under " + regionsIn
                + ", TCP; TarnClient from the"
                + " shaded adapter with " + SHORT_CIRCUIT_KEY + "=off, so the sequential rows take the TCP path)";
    }

    @Override
    public LoadResult getFile(int inflight, CompareSettings s) throws IOException, InterruptedException {
        return LoadDriver.chained(inflight, s.warmupSeconds(), s.seconds(), i -> client.getStatusAsync(STATUS_FILE));
    }

    @Override
    public LoadResult createClose(int inflight, CompareSettings s) throws IOException, InterruptedException {
        String dir = ROOT + "/create-" + inflight + "-" + createRuns++;
        client.mkdirs(dir);
        return LoadDriver.threads(inflight, s.warmupSeconds(), s.seconds(),
                (t, i) -> client.create(dir + "/f-" + t + "-" + i, NEW_FILE).close());
    }

    @Override
    public LoadResult rename(int inflight, CompareSettings s) throws IOException, InterruptedException {
        String dir = ROOT + "/rename-" + inflight + "-" + createRuns++;
        client.mkdirs(dir);
        for (int t = 0; t < inflight; t++) {
            client.create(dir + "/f-" + t + "-0", NEW_FILE).close();
        }
        return LoadDriver.threads(inflight, s.warmupSeconds(), s.seconds(),
                (t, i) -> client.rename(dir + "/f-" + t + "-" + (i & 1), dir + "/f-" + t + "-" + ((i + 1) & 1)));
    }

    @Override
    public double writeSequential(long bytes) throws IOException {
        return tcp.writeSequential(bytes);
    }

    @Override
    public double readSequential(long bytes) throws IOException {
        return tcp.readSequential(bytes);
    }

    /** The same sequential workloads through the client with {@code tarn.client.shortcircuit = auto}. */
    @Override
    public SequentialIo shortCircuit() {
        return shortCircuit;
    }

    @Override
    public void close() throws IOException {
        try {
            autoClient.close();
            client.close();
        } finally {
            servers.close();
        }
    }

    /**
     * One client's sequential file, written and read in 1 MiB calls, deleted after each read.
     *
     * @param shortCircuit whether the client is expected to copy every byte short-circuit
     */
    private record Sequential(TarnClient client, String path, boolean shortCircuit) implements SequentialIo {
        @Override
        public double writeSequential(long bytes) throws IOException {
            ByteBuffer buffer = SequentialData.directBuffer();
            long copied = client.shortCircuitBytes();
            long start = System.nanoTime();
            try (TarnOutputStream out = client.create(path, CreateOptions.OVERWRITE)) {
                for (long written = 0; written < bytes; written += buffer.capacity()) {
                    out.write(buffer.duplicate());
                }
            }
            double rate = SequentialData.rate(bytes, start);
            checkPath("write", client.shortCircuitBytes() - copied, bytes);
            return rate;
        }

        /** The bytes went the way the row says; a fallback to TCP is reported, not hidden. */
        private void checkPath(String what, long copied, long bytes) {
            if (shortCircuit && copied != bytes) {
                System.err.printf(Locale.ROOT, "compare: WARNING: the short-circuit %s copied %d of %d bytes "
                        + "directly; the rest went over TCP (see the client's log for why)%n", what, copied, bytes);
            } else if (!shortCircuit && copied != 0) {
                throw new IllegalStateException("the TCP-path client copied " + copied + " bytes short-circuit");
            }
        }

        @Override
        public double readSequential(long bytes) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocateDirect(CompareSettings.IO_BUFFER);
            long total = 0;
            long copied = client.shortCircuitBytes();
            long start = System.nanoTime();
            try (TarnInputStream in = client.open(path)) {
                int n;
                while ((n = in.read(buffer.clear())) >= 0) {
                    total += n;
                }
            }
            double rate = SequentialData.rate(total, start);
            SequentialData.checkLength("tarn://" + path, total, bytes);
            checkPath("read", client.shortCircuitBytes() - copied, total);
            client.delete(path, false);
            return rate;
        }
    }

    private static long roundUp(long value, long multiple) {
        return (value + multiple - 1) / multiple * multiple;
    }
}
