package io.tarn.client;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.datanode.dram.DramDatanode;
import io.tarn.namenode.Namenode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.tarn.client.TestFiles.random;
import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A one-partition namespace served by a replicated group of three namenodes, with a DRAM datanode
 * and a Java client that know the group's members: the client and the datanode follow the leader
 * (NOT_LEADER redirects, members that cannot be reached), so the client's calls made after the
 * leader stopped succeed without surfacing an error, and every file written before is read back
 * whole from the new leader. Real namenodes, datanode, sockets and journals, in one JVM.
 */
class NamenodeGroupFailoverTest {
    private static final int BLOCK = 64 << 10;

    @TempDir
    Path tmp;

    private final List<Namenode> members = new ArrayList<>();
    private final List<TarnConfig> configs = new ArrayList<>();
    private DramDatanode datanode;
    private TarnClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (datanode != null) {
            datanode.close();
        }
        for (Namenode n : members) {
            if (n != null) {
                n.close();
            }
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private TarnConfig start() throws Exception {
        String address = "127.0.0.1:" + freePort() + "|127.0.0.1:" + freePort() + "|127.0.0.1:" + freePort();
        TarnConfig base = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.NAMENODE_ADDRESS, address)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.RPC_IO_THREADS, 1)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 100L)
                .set(TarnKeys.DRAM_CAPACITY, 64L << 20)
                .set(TarnKeys.DRAM_REGION_SIZE, 16L << 20)
                .build();
        for (int i = 0; i < 3; i++) {
            configs.add(base.toBuilder().set(TarnKeys.NAMENODE_MEMBER, i)
                    .set(TarnKeys.NAMENODE_JOURNAL_DIR, tmp.resolve("nn" + i).toString()).build());
            members.add(Namenode.start(configs.get(i)));
        }
        datanode = DramDatanode.start(base.toBuilder()
                .set(TarnKeys.DATANODE_BIND, "127.0.0.1:0")
                .set(TarnKeys.DATANODE_HOSTNAME, "127.0.0.1")
                .set(TarnKeys.DRAM_PATH, tmp.resolve("dn").toString())
                .build());
        return base;
    }

    /** The member that leads and has the datanode registered and alive. */
    private int awaitLeaderWithDatanode(int notThis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            for (int i = 0; i < members.size(); i++) {
                Namenode n = members.get(i);
                if (i != notThis && n != null && n.serving()
                        && n.service().datanodes().all().stream().anyMatch(d -> d.alive())) {
                    return i;
                }
            }
            assertThat(System.nanoTime()).as("a leader with a live datanode").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void theClientAndTheDatanodeFollowANewLeader() throws Exception {
        TarnConfig config = start();
        int first = awaitLeaderWithDatanode(-1);
        client = TarnClient.connect(config);
        List<byte[]> written = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            byte[] data = random(2 * BLOCK + 100 * i, i);
            write(client, "/before/f-" + i, data);
            written.add(data);
        }

        members.get(first).close();
        members.set(first, null);

        // Namespace calls made at once follow the group to its new leader without an error.
        client.mkdirs("/after");
        assertThat(client.list("/before")).hasSize(5);
        int second = awaitLeaderWithDatanode(first);
        assertThat(second).isNotEqualTo(first);
        for (int i = 0; i < 5; i++) {
            assertThat(read(client, "/before/f-" + i)).as("file %d", i).isEqualTo(written.get(i));
        }
        byte[] later = random(3 * BLOCK, 99);
        write(client, "/after/g", later);
        assertThat(read(client, "/after/g")).isEqualTo(later);
    }
}
