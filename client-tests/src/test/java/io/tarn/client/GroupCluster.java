package io.tarn.client;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.datanode.dram.DramDatanode;
import io.tarn.namenode.Namenode;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A namespace of {@code partitions} partitions, each served by a replicated group of
 * {@code replicas} namenodes on loopback, and one DRAM datanode, in this JVM: real namenodes,
 * datanode, sockets and journals (under a test's temporary directory). {@link #config()} is what a
 * client needs to reach it.
 */
final class GroupCluster implements AutoCloseable {
    private final int replicas;
    /** Member m of partition p at index p * replicas + m; null once stopped. */
    private final Namenode[] members;
    private final TarnConfig config;
    private final DramDatanode datanode;

    /**
     * @param blockSize block size of the namespace
     */
    GroupCluster(Path dir, int partitions, int replicas, int blockSize) throws Exception {
        this.replicas = replicas;
        this.members = new Namenode[partitions * replicas];
        StringBuilder address = new StringBuilder();
        for (int p = 0; p < partitions; p++) {
            address.append(p > 0 ? "," : "");
            for (int m = 0; m < replicas; m++) {
                address.append(m > 0 ? "|" : "").append("127.0.0.1:").append(freePort());
            }
        }
        config = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.NAMENODE_ADDRESS, address.toString())
                .set(TarnKeys.BLOCK_SIZE, (long) blockSize)
                .set(TarnKeys.RPC_IO_THREADS, 1)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 100L)
                .set(TarnKeys.DRAM_CAPACITY, 64L << 20)
                .set(TarnKeys.DRAM_REGION_SIZE, 16L << 20)
                .build();
        DramDatanode started = null;
        try {
            for (int p = 0; p < partitions; p++) {
                for (int m = 0; m < replicas; m++) {
                    members[p * replicas + m] = Namenode.start(config.toBuilder()
                            .set(TarnKeys.NAMENODE_PARTITION, p)
                            .set(TarnKeys.NAMENODE_MEMBER, m)
                            .set(TarnKeys.NAMENODE_JOURNAL_DIR, dir.resolve("p" + p + "-m" + m).toString())
                            .build());
                }
            }
            started = DramDatanode.start(config.toBuilder()
                    .set(TarnKeys.DATANODE_BIND, "127.0.0.1:0")
                    .set(TarnKeys.DATANODE_HOSTNAME, "127.0.0.1")
                    .set(TarnKeys.DRAM_PATH, dir.resolve("dn").toString())
                    .build());
        } catch (Exception | Error e) {
            close();
            throw e;
        }
        datanode = started;
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** What a client of the namespace is configured with: every partition's members. */
    TarnConfig config() {
        return config;
    }

    /**
     * The member of partition {@code p} (other than {@code notThis}; -1 for any) that leads, serves
     * and has the datanode registered and alive, waiting up to a minute for one.
     */
    int awaitLeader(int p, int notThis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            for (int m = 0; m < replicas; m++) {
                Namenode n = members[p * replicas + m];
                if (m != notThis && n != null && n.serving()
                        && n.service().datanodes().all().stream().anyMatch(d -> d.alive())) {
                    return m;
                }
            }
            assertThat(System.nanoTime()).as("a leader of partition %d with a live datanode", p)
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** Stops member {@code m} of partition {@code p} (as a crash would, but closing its sockets). */
    void stopMember(int p, int m) {
        members[p * replicas + m].close();
        members[p * replicas + m] = null;
    }

    @Override
    public void close() {
        if (datanode != null) {
            datanode.close();
        }
        for (Namenode n : members) {
            if (n != null) {
                n.close();
            }
        }
    }
}
