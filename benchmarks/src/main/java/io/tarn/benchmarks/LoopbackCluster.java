package io.tarn.benchmarks;

import io.tarn.client.TarnClient;
import io.tarn.minicluster.MiniCluster;

import java.io.IOException;
import java.util.Set;

/**
 * The cluster of the loopback benchmarks: a {@link MiniCluster} with one namenode and one DRAM
 * datanode (defaults: one event-loop thread each, TCP), the namenode's threads for
 * {@link CpuCounters}, and one client.
 */
final class LoopbackCluster implements AutoCloseable {
    final MiniCluster cluster;
    final NamenodeCpu namenodeCpu;
    final TarnClient client;

    private LoopbackCluster(MiniCluster cluster, NamenodeCpu namenodeCpu) {
        this.cluster = cluster;
        this.namenodeCpu = namenodeCpu;
        this.client = TarnClient.connect(cluster.config());
    }

    static LoopbackCluster start() throws IOException {
        Set<Long> before = NamenodeCpu.snapshot();
        MiniCluster cluster = MiniCluster.builder().datanodes(1).start();
        try {
            NamenodeCpu cpu = NamenodeCpu.namenodeThreadsSince(before);
            System.out.println("# namenode threads measured: " + cpu.threadNames());
            return new LoopbackCluster(cluster, cpu);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            cluster.close();
        }
    }
}
