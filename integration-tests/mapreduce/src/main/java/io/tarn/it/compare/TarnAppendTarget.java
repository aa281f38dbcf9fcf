package io.tarn.it.compare;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.TarnConfig;
import io.tarn.dist.LocalCluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Tarn for the replicated-write comparison: a namenode and three DRAM datanodes, daemons started by
 * the distribution's {@code bin/tarn start} ({@link LocalCluster}), each keeping its block groups'
 * write-ahead journals ({@code tarn.replication.journal = disk}) under one directory that the runner
 * names, on a disk. The client ({@link TarnClient} from the shaded adapter) has
 * {@code tarn.client.shortcircuit = off}, so replication 1 and 3 both go over TCP: a replicated
 * block is written through its group's leader (GROUP_WRITE), which answers once a majority forced
 * the entry to its journal and the leader applied it.
 */
final class TarnAppendTarget implements AppendTarget {
    static final int DATANODES = 3;
    /**
     * The client's {@code tarn.rpc.timeout}: a write that finds no leader for this long fails its load
     * point (default 30 s: a group that lost its leader under load cost each failed point that long; an
     * election takes 150-300 ms).
     */
    static final long CLIENT_TIMEOUT_MILLIS = 5_000;

    private final LocalCluster servers;
    private final TarnClient client;
    private final long datanodeMb;
    private final Path journalDir;
    private final Path keepLogsIn;

    private TarnAppendTarget(LocalCluster servers, TarnClient client, long datanodeMb, Path journalDir,
                             Path keepLogsIn) {
        this.servers = servers;
        this.client = client;
        this.datanodeMb = datanodeMb;
        this.journalDir = journalDir;
        this.keepLogsIn = keepLogsIn;
    }

    /**
     * @param datanodeMb DRAM of each datanode, a multiple of 256 (the default region size: a block group
     *                   has a slot for each of the 256 blocks of 1 MiB of its region): room for every
     *                   file a load point keeps open at once
     * @param journalDir where the datanodes keep their journals (one subdirectory each)
     * @param keepLogsIn where the daemons' logs are copied when the cluster stops (LocalCluster
     *                   deletes its run directory)
     * @param mode       tarn.replication.mode: parallel (ParallelRaft) or in_order
     */
    static TarnAppendTarget start(long datanodeMb, Path journalDir, Path keepLogsIn, String mode)
            throws IOException {
        Files.createDirectories(journalDir);
        LocalCluster servers = LocalCluster.start(LocalCluster.home(), DATANODES, Map.of(
                "tarn.datanode.dram.capacity", datanodeMb + "m",
                "tarn.datanode.dram.region.size", "256m",
                "tarn.replication.journal", "disk",
                "tarn.replication.journal.dir", journalDir.toString(),
                "tarn.replication.mode", mode));
        try {
            String namenode = servers.uri().getHost() + ":" + servers.uri().getPort();
            TarnConfig.Builder config = TarnConfig.builder().apply(servers.clientKeys());
            TarnClient client = TarnClient.connect(config
                    .set("tarn.namenode.address", namenode)
                    .set("tarn.client.shortcircuit", "off")
                    .set("tarn.rpc.timeout", Long.toString(CLIENT_TIMEOUT_MILLIS))
                    .build());
            return new TarnAppendTarget(servers, client, datanodeMb, journalDir, keepLogsIn);
        } catch (IOException | RuntimeException e) {
            servers.close();
            throw e;
        }
    }

    @Override
    public String description() {
        return "Tarn (1 namenode, " + DATANODES + " DRAM datanodes of " + datanodeMb + " MiB, daemons of bin/tarn;"
                + " group journals on disk under " + journalDir + "; TarnClient with tarn.client.shortcircuit=off,"
                + " tarn.rpc.timeout " + CLIENT_TIMEOUT_MILLIS + " ms,"
                + " 1 MiB blocks and chunks, tarn.client.write.behind 4 MiB; regions of 256 MiB, so a block group has"
                + " 256 slots; heartbeats every 200 ms)";
    }

    @Override
    public String name() {
        return "Tarn";
    }

    @Override
    public Appender create(String path, int replication) throws IOException {
        TarnOutputStream out = client.create(path, CreateOptions.OVERWRITE.withReplication(replication));
        return AppendTarget.over(out, out::hflush, out::hsync);
    }

    @Override
    public void deleteTree(String path) throws IOException {
        client.delete(path, true);
    }

    @Override
    public void close() throws IOException {
        try {
            client.close();
            Path logs = servers.runDir().resolve("logs");
            if (Files.isDirectory(logs)) {
                Files.createDirectories(keepLogsIn);
                try (Stream<Path> files = Files.list(logs)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Files.copy(f, keepLogsIn.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        } finally {
            servers.close();
        }
    }
}
