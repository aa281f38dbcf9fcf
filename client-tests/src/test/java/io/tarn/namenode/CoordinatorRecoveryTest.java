package io.tarn.namenode;

import io.tarn.client.TarnClient;
import io.tarn.client.TestFiles;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.namenode.PeerProtocol.DirMkdirRequest;
import io.tarn.namenode.namespace.DirectoryInode;
import io.tarn.namenode.namespace.Namespace;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A directory coordinator that stopped with a change under way carries it through when it starts
 * again. The state such a crash leaves, the change's intent forced to the coordinator's journal and
 * nothing applied anywhere yet (or applied at some namenodes), is made here by recording the
 * intent without running the change; then namenode 0 restarts from its journal, as it would after
 * kill -9 at that point. Real namenodes over real sockets, journals on disk.
 */
class CoordinatorRecoveryTest {
    private static final int NAMENODES = 2;

    private static MiniCluster cluster() throws IOException {
        return MiniCluster.builder().namenodes(NAMENODES).datanodes(1)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK).start();
    }

    private static boolean isDirectory(MiniCluster cluster, int p, String path) {
        try {
            return cluster.namenode(p).service().namespace().find(path) instanceof DirectoryInode;
        } catch (TarnException e) {
            throw new AssertionError(e);
        }
    }

    private static int state(MiniCluster cluster, int p, String path) throws TarnException {
        return ((DirectoryInode) cluster.namenode(p).service().namespace().find(path)).state();
    }

    @Test
    void aMkdirUnderWayWhenTheCoordinatorStoppedIsCompletedOnEveryNamenode() throws Exception {
        try (MiniCluster cluster = cluster()) {
            Namespace ns0 = cluster.namenode(0).service().namespace();
            ns0.applyMkdir("/", "p", ns0.newDirectoryId(), new Ownership("alice", "staff", 0755), 1_000L);
            cluster.namenode(1).service().namespace().applyMkdir("/", "p",
                    ns0.find("/p").id(), new Ownership("alice", "staff", 0755), 1_000L);
            // Its arbiter, namenode 1, applied it; namenode 0 had not when it stopped.
            String name = TestFiles.nameOf(1, NAMENODES, "q", 0);
            DirMkdirRequest r = new DirMkdirRequest("/p", name, ns0.newDirectoryId(),
                    new Ownership("bob", "users", 0700), 2_000L);
            cluster.namenode(1).service().namespace().applyMkdir(r.parent(), r.name(), r.dirId(), r.ownership(),
                    r.time());
            ns0.beginDirectoryChange(DirectoryCoordinator.change(DirectoryCoordinator.MKDIR, r::encode));

            cluster.stopNamenode(0);
            cluster.startNamenode(0);

            String path = "/p/" + name;
            Eventually.within(Duration.ofSeconds(20), "the mkdir completed at namenode 0",
                    () -> isDirectory(cluster, 0, path));
            Namespace restarted = cluster.namenode(0).service().namespace();
            assertThat(restarted.find(path).id()).isEqualTo(r.dirId());
            assertThat(restarted.find(path).ownership().owner()).isEqualTo("bob");
            assertThat(restarted.unfinishedDirectoryChange()).isNull();
            // Ended in the journal too: the next restart has nothing to complete, and ids go on above it.
            cluster.stopNamenode(0);
            cluster.startNamenode(0);
            assertThat(cluster.namenode(0).service().namespace().unfinishedDirectoryChange()).isNull();
            assertThat(cluster.namenode(0).service().namespace().newDirectoryId()).isGreaterThan(r.dirId());
        }
    }

    @Test
    void anRmdirUnderWayWhenTheCoordinatorStoppedUnsealsTheDirectoryEverywhere() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/sealed");
            // rmdir's first phase reached namenode 1 (inserts there answer RETRY), then namenode 0 stopped.
            cluster.namenode(1).service().namespace().seal("/sealed");
            Namespace ns0 = cluster.namenode(0).service().namespace();
            ns0.beginDirectoryChange(DirectoryCoordinator.change(DirectoryCoordinator.RMDIR,
                    new PathRequest("/sealed")::encode));
            String file = "/sealed/" + TestFiles.nameOf(1, NAMENODES, "f", 0);
            assertThat(state(cluster, 1, "/sealed")).isEqualTo(DirectoryInode.SEALED);

            cluster.stopNamenode(0);
            cluster.startNamenode(0);

            Eventually.within(Duration.ofSeconds(20), "the rmdir given up",
                    () -> cluster.namenode(0).service().namespace().unfinishedDirectoryChange() == null);
            try (TarnOutputStream out = client.create(file)) {
                out.write(42);
            }
            assertThat(client.getStatus(file).size()).isEqualTo(1);
            assertThat(state(cluster, 1, "/sealed")).isEqualTo(DirectoryInode.ALIVE);
            assertThat(state(cluster, 0, "/sealed")).isEqualTo(DirectoryInode.ALIVE);
        }
    }

    @Test
    void aRenameUnderWayWhenTheCoordinatorStoppedIsCompletedOnEveryNamenode() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/from/sub");
            String target = "/" + TestFiles.nameOf(1, NAMENODES, "to", 0);
            try (TarnOutputStream out = client.create("/from/sub/" + TestFiles.nameOf(1, NAMENODES, "f", 0))) {
                out.write(7);
            }
            // The arbiter of the new name, namenode 1, renamed it; namenode 0 had not when it stopped.
            cluster.namenode(1).service().namespace().applyRename("/from", target);
            cluster.namenode(0).service().namespace().beginDirectoryChange(DirectoryCoordinator.change(
                    DirectoryCoordinator.RENAME, new RenameRequest("/from", target)::encode));

            cluster.stopNamenode(0);
            cluster.startNamenode(0);

            Eventually.within(Duration.ofSeconds(20), "the rename completed at namenode 0",
                    () -> isDirectory(cluster, 0, target + "/sub"));
            assertThat(cluster.namenode(0).service().namespace().find("/from")).isNull();
            assertThat(client.getStatus(target + "/sub/" + TestFiles.nameOf(1, NAMENODES, "f", 0)).size()).isEqualTo(1);
        }
    }

    @Test
    void aRecursiveDeleteUnderWayWhenTheCoordinatorStoppedIsCompletedOnEveryNamenode() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/doomed/deep");
            for (int p = 0; p < NAMENODES; p++) {
                try (TarnOutputStream out = client.create("/doomed/deep/" + TestFiles.nameOf(p, NAMENODES, "f", 0))) {
                    out.write(p);
                }
            }
            long files1 = cluster.namenode(1).fileCount();
            // Recorded at namenode 0, sent to no one yet.
            cluster.namenode(0).service().namespace().beginDirectoryChange(DirectoryCoordinator.change(
                    DirectoryCoordinator.DELETE_TREE, new PathRequest("/doomed")::encode));

            cluster.stopNamenode(0);
            cluster.startNamenode(0);

            Eventually.within(Duration.ofSeconds(20), "the delete completed at namenode 1",
                    () -> !isDirectory(cluster, 1, "/doomed"));
            assertThat(isDirectory(cluster, 0, "/doomed")).isFalse();
            assertThat(cluster.namenode(1).fileCount()).isEqualTo(files1 - 1);
            assertThat(client.exists("/doomed")).isFalse();
        }
    }
}
