package io.tarn.it.dfsio;

import io.tarn.dist.LocalCluster;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

/**
 * Tarn's side: a namenode and two DRAM datanodes, daemons started by the distribution's bin/tarn, reached
 * through the shaded adapter with its default settings: the datanodes run on this host, so the
 * client copies block data short-circuit (docs/short-circuit.md), as a Hadoop job next to its
 * datanodes does. Each datanode gets room for the whole data set, so block placement never runs
 * short whichever datanode it prefers.
 */
final class TarnTarget implements BenchmarkTarget {
    static final int DATANODES = 2;
    private static final long REGION_MB = 16;

    private final LocalCluster servers;
    private final long datanodeMb;

    private TarnTarget(LocalCluster servers, long datanodeMb) {
        this.servers = servers;
        this.datanodeMb = datanodeMb;
    }

    static TarnTarget start(DfsioSettings settings) throws IOException {
        long dataMb = (long) settings.files() * Math.max(settings.fileMb(), settings.warmupMb());
        long datanodeMb = roundUp(Math.max(1024, dataMb + 256), REGION_MB);
        LocalCluster servers = LocalCluster.start(LocalCluster.home(), DATANODES, Map.of(
                "tarn.datanode.dram.capacity", datanodeMb + "m",
                "tarn.datanode.dram.region.size", REGION_MB + "m"));
        return new TarnTarget(servers, datanodeMb);
    }

    @Override
    public String description() {
        return "Tarn (" + DATANODES + " DRAM datanodes of " + datanodeMb + " MiB; the adapter's default"
                + " tarn.client.shortcircuit=auto, so the map tasks copy block data straight from and to the"
                + " datanodes' mapped files in this JVM's host)";
    }

    @Override
    public URI uri() {
        return servers.uri();
    }

    @Override
    public Map<String, String> clientKeys() throws IOException {
        return servers.clientKeys();
    }

    @Override
    public void close() throws IOException {
        servers.close();
    }

    private static long roundUp(long value, long multiple) {
        return (value + multiple - 1) / multiple * multiple;
    }
}
