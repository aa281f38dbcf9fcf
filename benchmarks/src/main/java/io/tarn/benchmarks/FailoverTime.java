package io.tarn.benchmarks;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.GroupMember;
import io.tarn.minicluster.MiniCluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * How long a writer of a file of replication 3 is held up when its block group's leader dies:
 * from the crash of the leader's datanode (no goodbye: sockets closed, region files kept) to the
 * return of the first write plus hsync after it, as the application sees it (the client finds the
 * leader gone, the survivors elect one, the client follows it). One in-process cluster of five DRAM
 * datanodes with default replication settings; the crashed datanode is restarted between rounds.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.tarn.benchmarks.FailoverTime [rounds]
 * </pre>
 * Prints each round and the median, in milliseconds.
 */
public final class FailoverTime {
    private FailoverTime() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        byte[] chunk = new byte[4096];
        List<Double> millis = new ArrayList<>();
        try (MiniCluster cluster = MiniCluster.builder().datanodes(5).set(TarnKeys.BLOCK_SIZE, 1L << 20)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            for (int round = 0; round < rounds; round++) {
                String path = "/failover/f" + round;
                try (TarnOutputStream out = client.create(path, CreateOptions.DEFAULT.withReplication(3))) {
                    out.write(chunk);
                    out.hsync();
                    Thread.sleep(500); // the leader's report reaches the namenode with a heartbeat
                    long fileId = client.getStatus(path).fileId();
                    BlockGroup group = client.getBlock(fileId, 0).group();
                    GroupMember leader = group.member(group.leaderMemberId());
                    int index = datanodeAt(cluster, leader.port());
                    long start = System.nanoTime();
                    cluster.crashDatanode(index);
                    out.write(chunk);
                    out.hsync();
                    double ms = (System.nanoTime() - start) / 1e6;
                    millis.add(ms);
                    System.out.printf(Locale.ROOT, "round %d: group %d lost member %d (datanode %d): %.0f ms%n",
                            round, group.groupId(), leader.memberId(), index, ms);
                    cluster.restartDatanode(index);
                }
            }
        }
        Collections.sort(millis);
        System.out.printf(Locale.ROOT, "failover, crash to first acknowledged write + hsync: median %.0f ms, "
                + "min %.0f, max %.0f over %d rounds%n", millis.get(millis.size() / 2), millis.get(0),
                millis.get(millis.size() - 1), millis.size());
    }

    private static int datanodeAt(MiniCluster cluster, int port) {
        for (int i = 0; i < cluster.datanodeCount(); i++) {
            if (cluster.datanode(i).address().getPort() == port) {
                return i;
            }
        }
        throw new IllegalStateException("no datanode serves port " + port);
    }
}
