package io.tarn.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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

    private GroupCluster cluster;
    private TarnClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theClientAndTheDatanodeFollowANewLeader() throws Exception {
        cluster = new GroupCluster(tmp, 1, 3, BLOCK);
        int first = cluster.awaitLeader(0, -1);
        client = TarnClient.connect(cluster.config());
        List<byte[]> written = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            byte[] data = random(2 * BLOCK + 100 * i, i);
            write(client, "/before/f-" + i, data);
            written.add(data);
        }

        cluster.stopMember(0, first);

        // Namespace calls made at once follow the group to its new leader without an error.
        client.mkdirs("/after");
        assertThat(client.list("/before")).hasSize(5);
        int second = cluster.awaitLeader(0, first);
        assertThat(second).isNotEqualTo(first);
        for (int i = 0; i < 5; i++) {
            assertThat(read(client, "/before/f-" + i)).as("file %d", i).isEqualTo(written.get(i));
        }
        byte[] later = random(3 * BLOCK, 99);
        write(client, "/after/g", later);
        assertThat(read(client, "/after/g")).isEqualTo(later);
    }
}
