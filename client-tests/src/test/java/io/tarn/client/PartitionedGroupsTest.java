package io.tarn.client;

import io.tarn.common.fs.FileStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.tarn.client.TestFiles.nameOf;
import static io.tarn.client.TestFiles.random;
import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A namespace of two partitions, each served by a replicated group of three namenodes, with a DRAM
 * datanode and a Java client: directory changes go through partition 0's coordinator to partition
 * 1's leader, files are moved between the partitions, and after the leader of partition 1 and then
 * the leader of partition 0 stop, the new leaders serve every file and directory written before
 * (the new leader of partition 1 took partition 0's tree; partition 0's new coordinator reaches
 * partition 1 through its new leader) and the client goes on without an error. Real namenodes,
 * datanode, sockets and journals, in one JVM.
 */
class PartitionedGroupsTest {
    private static final int BLOCK = 64 << 10;
    private static final int PARTITIONS = 2;
    private static final int REPLICAS = 3;

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
    void directoriesFilesAndMovesSurviveTheLeadersOfBothPartitions() throws Exception {
        cluster = new GroupCluster(tmp, PARTITIONS, REPLICAS, BLOCK);
        int leader0 = cluster.awaitLeader(0, -1);
        int leader1 = cluster.awaitLeader(1, -1);
        client = TarnClient.connect(cluster.config());

        // Files of both partitions, in a directory every partition must know.
        client.mkdirs("/data/in");
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (int k = 0; k < 3; k++) {
                String path = "/data/in/" + nameOf(p, PARTITIONS, "f", k);
                byte[] bytes = random(BLOCK + 1000 * k + p, 10L * p + k);
                write(client, path, bytes);
                files.put(path, bytes);
            }
        }
        // A move from partition 0 to partition 1 and one back, and a directory renamed.
        String from0 = "/data/in/" + nameOf(0, PARTITIONS, "f", 0);
        String to1 = "/data/in/" + nameOf(1, PARTITIONS, "moved", 0);
        String from1 = "/data/in/" + nameOf(1, PARTITIONS, "f", 1);
        String to0 = "/data/in/" + nameOf(0, PARTITIONS, "moved", 0);
        client.rename(from0, to1);
        client.rename(from1, to0);
        files.put(to1, files.remove(from0));
        files.put(to0, files.remove(from1));
        client.rename("/data/in", "/data/out");
        Map<String, byte[]> expected = new HashMap<>();
        files.forEach((path, bytes) -> expected.put(path.replace("/data/in/", "/data/out/"), bytes));

        // The leader of partition 1 stops: its successor takes partition 0's tree and serves the files.
        cluster.stopMember(1, leader1);
        client.mkdirs("/after1");
        int next1 = cluster.awaitLeader(1, leader1);
        assertThat(next1).isNotEqualTo(leader1);
        checkFiles(expected);
        String late1 = "/after1/" + nameOf(1, PARTITIONS, "g", 0);
        byte[] late1Bytes = random(2 * BLOCK, 77);
        write(client, late1, late1Bytes);
        expected.put(late1, late1Bytes);

        // The leader of partition 0 (the coordinator) stops: directory changes and moves go on.
        cluster.stopMember(0, leader0);
        client.mkdirs("/after0/sub");
        int next0 = cluster.awaitLeader(0, leader0);
        assertThat(next0).isNotEqualTo(leader0);
        String late0 = "/after0/sub/" + nameOf(0, PARTITIONS, "g", 0);
        byte[] late0Bytes = random(BLOCK + 3, 78);
        write(client, late0, late0Bytes);
        String movedLate = "/after0/sub/" + nameOf(1, PARTITIONS, "h", 0);
        client.rename(late0, movedLate);
        expected.put(movedLate, late0Bytes);
        client.rename("/after1", "/after0/sub/one");
        expected.put(late1.replace("/after1/", "/after0/sub/one/"), expected.remove(late1));
        checkFiles(expected);

        // Each new leader holds every directory: a listing through partition 1's leader (it owns the
        // files named below) shows the renamed directory's file.
        List<FileStatus> listed = client.list("/after0/sub/one");
        assertThat(listed).extracting(FileStatus::name)
                .containsExactly(late1.substring(late1.lastIndexOf('/') + 1));
        assertThat(client.list("/data/out")).hasSize(6);
    }

    private void checkFiles(Map<String, byte[]> expected) throws Exception {
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            assertThat(read(client, e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
        }
    }
}
