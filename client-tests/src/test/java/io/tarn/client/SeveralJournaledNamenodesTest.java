package io.tarn.client;

import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnFileNotFoundException;
import io.tarn.common.fs.Partitions;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.namenode.PeerProtocol.DirectorySnapshot;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.namespace.DirectoryInode;
import io.tarn.namenode.namespace.Namespace;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.tarn.client.TestFiles.nameOf;
import static io.tarn.client.TestFiles.random;
import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Several namenodes with {@code tarn.namenode.journal = disk}: each keeps its own files across a
 * restart, the coordinator keeps every directory, files moved between them stay moved (their
 * blocks lent by the namenode that allocated them until given back), and a namenode that was down
 * while directories changed takes the coordinator's tree when it starts again (created, renamed
 * and recursively deleted directories, attributes), through recorded changes that its own next
 * restart replays.
 * Real namenodes and datanodes over real sockets, journals on disk.
 */
class SeveralJournaledNamenodesTest {
    private static final int BLOCK = 64 << 10;
    private static final int NAMENODES = 2;

    private static MiniCluster cluster() throws IOException {
        return MiniCluster.builder().namenodes(NAMENODES).datanodes(2).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK).start();
    }

    /** Every directory of namenode {@code p}'s tree with its id and attributes, in a fixed order. */
    private static List<String> tree(MiniCluster cluster, int p) {
        List<DirectorySnapshot.Directory> dirs = cluster.namenode(p).service().namespace().snapshot().directories();
        String[] paths = new String[dirs.size()];
        List<String> out = new ArrayList<>();
        for (int i = 0; i < dirs.size(); i++) {
            DirectorySnapshot.Directory d = dirs.get(i);
            paths[i] = i == 0 ? "/" : (d.parent() == 0 ? "" : paths[d.parent()]) + "/" + d.name();
            out.add(paths[i] + " id=" + d.id() + " owner=" + d.ownership().owner() + " perm="
                    + Integer.toOctalString(d.ownership().permission()) + " repl=" + d.replication());
        }
        out.sort(null);
        return out;
    }

    /** Writes files of both partitions in {@code dir}, returning their contents by path. */
    private static Map<String, byte[]> filesIn(TarnClient client, String dir, long seed) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (int p = 0; p < NAMENODES; p++) {
            for (int k = 0; k < 3; k++) {
                String path = dir + "/" + nameOf(p, NAMENODES, "f", k);
                byte[] data = random(BLOCK / 2 + 100 * k + p, seed + 10L * p + k);
                write(client, path, data);
                files.put(path, data);
            }
        }
        return files;
    }

    @Test
    void everyNamenodeKeepsItsFilesAndEveryDirectoryAcrossRestarts() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/a/b");
            client.mkdirs("/c");
            Map<String, byte[]> files = new LinkedHashMap<>(filesIn(client, "/a/b", 1));
            files.putAll(filesIn(client, "/c", 2));
            files.putAll(filesIn(client, "", 3));
            client.setOwner("/a/b", "alice", "staff");
            client.setPermission("/c", 0750);
            long[] counts = {cluster.namenode(0).fileCount(), cluster.namenode(1).fileCount()};
            assertThat(counts[0]).as("files at namenode 0").isGreaterThan(0);
            assertThat(counts[1]).as("files at namenode 1").isGreaterThan(0);
            List<String> before = tree(cluster, 0);
            assertThat(tree(cluster, 1)).isEqualTo(before);

            cluster.stopNamenode(1);
            cluster.startNamenode(1);
            cluster.stopNamenode(0);
            cluster.startNamenode(0);

            assertThat(tree(cluster, 0)).isEqualTo(before);
            assertThat(tree(cluster, 1)).isEqualTo(before);
            assertThat(cluster.namenode(0).fileCount()).isEqualTo(counts[0]);
            assertThat(cluster.namenode(1).fileCount()).isEqualTo(counts[1]);
            for (Map.Entry<String, byte[]> e : files.entrySet()) {
                assertThat(read(client, e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
            assertThat(client.getStatus("/a/b").owner()).isEqualTo("alice");
            assertThat(client.getStatus("/c").permission()).isEqualTo(0750);
            // The restarted namenodes go on changing directories together.
            client.mkdirs("/after/restart");
            write(client, "/after/restart/" + nameOf(1, NAMENODES, "g", 0), random(100, 9));
            assertThat(tree(cluster, 1)).isEqualTo(tree(cluster, 0));
        }
    }

    @Test
    void aNamenodeThatWasDownTakesTheDirectoryChangesItMissed() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            // Names whose arbiter is namenode 0, so that their changes go ahead while namenode 1 is down.
            String keep = "/" + nameOf(0, NAMENODES, "keep", 0);
            String gone = "/" + nameOf(0, NAMENODES, "gone", 0);
            String moved = "/" + nameOf(0, NAMENODES, "moved", 0);
            String movedTo = keep + "/" + nameOf(0, NAMENODES, "there", 0);
            String fresh = "/" + nameOf(0, NAMENODES, "fresh", 0);
            client.mkdirs(keep);
            client.mkdirs(gone + "/deep");
            client.mkdirs(moved + "/sub");
            Map<String, byte[]> kept = filesIn(client, keep, 1);
            Map<String, byte[]> deleted = filesIn(client, gone + "/deep", 2);
            Map<String, byte[]> movedFiles = filesIn(client, moved + "/sub", 3);
            long filesAt1 = cluster.namenode(1).fileCount();

            cluster.stopNamenode(1);
            // Each change is applied at namenode 0 and fails to reach namenode 1.
            assertThat(catchThrowable(() -> client.mkdirs(fresh))).isInstanceOf(TarnError.class);
            assertThat(catchThrowable(() -> client.delete(gone, true))).isInstanceOf(TarnError.class);
            assertThat(catchThrowable(() -> client.rename(moved, movedTo))).isInstanceOf(TarnError.class);
            assertThat(catchThrowable(() -> client.setOwner(keep, "carol", "staff"))).isInstanceOf(TarnError.class);
            Namespace ns0 = cluster.namenode(0).service().namespace();
            assertThat(ns0.find(fresh)).isInstanceOf(DirectoryInode.class);
            assertThat(ns0.find(gone)).isNull();
            assertThat(ns0.find(movedTo + "/sub")).isInstanceOf(DirectoryInode.class);

            cluster.startNamenode(1);

            List<String> coordinator = tree(cluster, 0);
            assertThat(tree(cluster, 1)).isEqualTo(coordinator);
            int deletedAt1 = (int) deleted.keySet().stream()
                    .filter(path -> Partitions.ofName(path.substring(path.lastIndexOf('/') + 1), NAMENODES) == 1)
                    .count();
            assertThat(cluster.namenode(1).fileCount()).as("the files of the deleted directory are gone")
                    .isEqualTo(filesAt1 - deletedAt1);
            for (String path : deleted.keySet()) {
                assertThat(catchThrowable(() -> client.getStatus(path))).as(path)
                        .isInstanceOf(TarnFileNotFoundException.class);
            }
            for (Map.Entry<String, byte[]> e : movedFiles.entrySet()) {
                String now = e.getKey().replace(moved + "/", movedTo + "/");
                assertThat(read(client, now)).as(now).isEqualTo(e.getValue());
            }
            for (Map.Entry<String, byte[]> e : kept.entrySet()) {
                assertThat(read(client, e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
            assertThat(client.getStatus(keep).owner()).isEqualTo("carol");

            // What namenode 1 took was recorded: it replays to the same tree, and namenode 0 keeps its own.
            cluster.stopNamenode(1);
            cluster.startNamenode(1);
            cluster.stopNamenode(0);
            cluster.startNamenode(0);
            assertThat(tree(cluster, 0)).isEqualTo(coordinator);
            assertThat(tree(cluster, 1)).isEqualTo(coordinator);
            assertThat(cluster.namenode(1).fileCount()).isEqualTo(filesAt1 - deletedAt1);
        }
    }

    /** Free blocks at namenode {@code p}, over every datanode's share it manages. */
    private static long free(MiniCluster cluster, int p) {
        long free = 0;
        for (DatanodeInfo dn : cluster.namenode(p).service().datanodes().all()) {
            free += dn.freeBlocks();
        }
        return free;
    }

    @Test
    void aFileMovedToAnotherNamenodeStaysMovedAcrossRestartsAndCheckpoints() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/out");
            String src = "/out/" + nameOf(0, NAMENODES, "src", 0);
            String dst = "/out/" + nameOf(1, NAMENODES, "dst", 0);
            String back = "/out/" + nameOf(0, NAMENODES, "back", 0);
            byte[] data = random(2 * BLOCK + 7, 5);
            byte[] second = random(BLOCK + 1, 6);
            write(client, src, data);
            write(client, "/out/" + nameOf(0, NAMENODES, "second", 0), second);
            long free0 = free(cluster, 0);

            client.rename(src, dst);

            Namespace ns0 = cluster.namenode(0).service().namespace();
            assertThat(ns0.lentBlockCount()).as("the moved file's blocks, lent to namenode 1").isEqualTo(3);
            assertThat(read(client, dst)).isEqualTo(data);
            Eventually.within(Duration.ofSeconds(10), "namenode 1 forgot the settled move",
                    () -> cluster.namenode(1).service().namespace().ledgerSize() == 0);
            // Both restart, one from a checkpoint (lent blocks and foreign blocks in the image), one from its journal.
            cluster.namenode(0).checkpoint();
            cluster.namenode(1).checkpoint();
            cluster.stopNamenode(1);
            cluster.startNamenode(1);
            cluster.stopNamenode(0);
            cluster.startNamenode(0);
            assertThat(catchThrowable(() -> client.getStatus(src))).isInstanceOf(TarnFileNotFoundException.class);
            assertThat(read(client, dst)).isEqualTo(data);
            assertThat(cluster.namenode(0).service().namespace().lentBlockCount()).isEqualTo(3);
            assertThat(free(cluster, 0)).as("lent blocks stay allocated after a restart").isEqualTo(free0);
            // New files at namenode 0 never take the moved file's places.
            for (int i = 0; i < 4; i++) {
                write(client, "/out/" + nameOf(0, NAMENODES, "new", i), random(2 * BLOCK, 20 + i));
            }
            assertThat(read(client, dst)).isEqualTo(data);

            // Moved back home, then deleted: its blocks are namenode 0's again, and freed.
            client.rename(dst, back);
            assertThat(read(client, back)).isEqualTo(data);
            assertThat(cluster.namenode(0).service().namespace().lentBlockCount()).isZero();
            cluster.stopNamenode(0);
            cluster.startNamenode(0);
            assertThat(read(client, back)).isEqualTo(data);
            long beforeDelete = free(cluster, 0);
            assertThat(client.delete(back, false)).isTrue();
            assertThat(free(cluster, 0)).isEqualTo(beforeDelete + 3);

            // Moved away and deleted there: namenode 1 gives the blocks back, which stays so after a restart.
            String away = "/out/" + nameOf(1, NAMENODES, "away", 0);
            String third = "/out/" + nameOf(0, NAMENODES, "third", 0);
            write(client, third, random(BLOCK, 7));
            client.rename(third, away);
            long lentFree = free(cluster, 0);
            assertThat(client.delete(away, false)).isTrue();
            Eventually.within(Duration.ofSeconds(10), "namenode 0 got its block back",
                    () -> cluster.namenode(0).service().namespace().lentBlockCount() == 0);
            assertThat(free(cluster, 0)).isEqualTo(lentFree + 1);
            cluster.stopNamenode(0);
            cluster.startNamenode(0);
            assertThat(cluster.namenode(0).service().namespace().lentBlockCount()).isZero();
            assertThat(free(cluster, 0)).isEqualTo(lentFree + 1);
            assertThat(read(client, "/out/" + nameOf(0, NAMENODES, "second", 0))).isEqualTo(second);
        }
    }
}
