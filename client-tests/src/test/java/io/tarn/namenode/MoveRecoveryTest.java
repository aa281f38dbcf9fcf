package io.tarn.namenode;

import io.tarn.client.TarnClient;
import io.tarn.client.TestFiles;
import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.TarnException;
import io.tarn.common.error.TarnFileNotFoundException;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.namespace.FileMove;
import io.tarn.namenode.namespace.Namespace;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A move of a file between two journaled namenodes interrupted by a restart of either side ends
 * the same way on both: the sender, restarted with the move begun in its journal, asks the
 * receiver (FILE_ADOPTION) and commits when the receiver had adopted the file (even when the
 * receiver restarted too, from its ledger) and aborts when it had not (and the receiver then
 * refuses the adoption should it still arrive). The states such crashes leave are made by running
 * the move's steps up to the crash point through the namenodes' own calls, then restarting them
 * from their journals, as after kill -9 at that point. Real namenodes, datanodes and sockets.
 */
class MoveRecoveryTest {
    private static final int NAMENODES = 2;
    private static final int BLOCK = 64 << 10;

    private static MiniCluster cluster() throws IOException {
        return MiniCluster.builder().namenodes(NAMENODES).datanodes(2).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK).start();
    }

    private static byte[] write(TarnClient client, String path, int n, long seed) throws IOException {
        byte[] data = TestFiles.random(n, seed);
        TestFiles.write(client, path, data);
        return data;
    }

    /** Begins moving {@code src} (namenode 0's) to {@code dst} (namenode 1's): MOVE_BEGIN recorded. */
    private static FileMove begin(MiniCluster cluster, String src, String dst) throws TarnException {
        Namespace ns0 = cluster.namenode(0).service().namespace();
        FileMove move = ns0.rename(src, dst).move();
        ns0.recordMoveBegin(move);
        return move;
    }

    /** The receiver adopts it, as FILE_ADOPT does. */
    private static void adopt(MiniCluster cluster, FileMove move) throws TarnException {
        AdoptRequest r = move.adoptRequest(cluster.namenode(0).service().files().movedBlocks(move.file(), 0));
        NamenodeService receiver = cluster.namenode(1).service();
        receiver.namespace().adopt(r, receiver.files().adoptedBlocks(r.blocks(), 1));
    }

    private static boolean exists(TarnClient client, String path) {
        try {
            client.getStatus(path);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aSenderRestartedAfterTheAdoptionCommitsTheMove() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/out");
            String src = "/out/" + TestFiles.nameOf(0, NAMENODES, "src", 0);
            String dst = "/out/" + TestFiles.nameOf(1, NAMENODES, "dst", 0);
            byte[] data = write(client, src, 2 * BLOCK + 3, 1);
            FileMove move = begin(cluster, src, dst);
            adopt(cluster, move);
            // Both stop before the sender hears the answer. The sender starts first and asks until the
            // receiver is back, whose ledger comes from its journal.
            cluster.stopNamenode(0);
            cluster.stopNamenode(1);
            cluster.startNamenode(0);
            assertThat(cluster.namenode(0).service().namespace().openMoves()).hasSize(1);
            cluster.startNamenode(1);

            Eventually.within(Duration.ofSeconds(20), "the move committed at namenode 0",
                    () -> cluster.namenode(0).service().namespace().openMoves().isEmpty());
            assertThat(catchThrowable(() -> client.getStatus(src))).isInstanceOf(TarnFileNotFoundException.class);
            assertThat(TestFiles.read(client, dst)).isEqualTo(data);
            assertThat(cluster.namenode(0).service().namespace().lentBlockCount()).isEqualTo(3);
            Eventually.within(Duration.ofSeconds(20), "namenode 1 forgot the settled move",
                    () -> cluster.namenode(1).service().namespace().ledgerSize() == 0);
            // Recorded so: another restart of the sender has nothing to settle and keeps the file gone.
            cluster.stopNamenode(0);
            cluster.startNamenode(0);
            assertThat(cluster.namenode(0).service().namespace().openMoves()).isEmpty();
            assertThat(exists(client, src)).isFalse();
            assertThat(TestFiles.read(client, dst)).isEqualTo(data);
        }
    }

    @Test
    void aSenderRestartedBeforeTheAdoptionArrivedAbortsTheMove() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/out");
            String src = "/out/" + TestFiles.nameOf(0, NAMENODES, "src", 0);
            String dst = "/out/" + TestFiles.nameOf(1, NAMENODES, "dst", 0);
            byte[] data = write(client, src, BLOCK + 9, 2);
            FileMove move = begin(cluster, src, dst);
            cluster.stopNamenode(0);
            cluster.startNamenode(0);

            Eventually.within(Duration.ofSeconds(20), "the move aborted at namenode 0",
                    () -> cluster.namenode(0).service().namespace().openMoves().isEmpty());
            assertThat(TestFiles.read(client, src)).isEqualTo(data);
            assertThat(exists(client, dst)).isFalse();
            // The FILE_ADOPT the crash held up, arriving now, is refused: the file is never under two names.
            assertThat(catchThrowable(() -> adopt(cluster, move))).isInstanceOf(TarnException.class)
                    .hasMessageContaining("would not happen");
            assertThat(exists(client, dst)).isFalse();
            // And the file moves normally afterwards.
            client.rename(src, dst);
            assertThat(TestFiles.read(client, dst)).isEqualTo(data);
            assertThat(exists(client, src)).isFalse();
        }
    }

    @Test
    void aSenderThatCannotAskTheReceiverKeepsTheFileMovingUntilItCan() throws Exception {
        try (MiniCluster cluster = cluster();
             TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/out");
            String src = "/out/" + TestFiles.nameOf(0, NAMENODES, "src", 0);
            String dst = "/out/" + TestFiles.nameOf(1, NAMENODES, "dst", 0);
            byte[] data = write(client, src, BLOCK / 2, 3);
            begin(cluster, src, dst);
            // The receiver went down before any FILE_ADOPT reached it, then the sender too.
            cluster.stopNamenode(1);
            cluster.stopNamenode(0);
            cluster.startNamenode(0);
            Thread.sleep(2_500); // a few questions go unanswered meanwhile
            assertThat(cluster.namenode(0).service().namespace().openMoves()).as("not settled while it cannot ask")
                    .hasSize(1);

            cluster.startNamenode(1);

            Eventually.within(Duration.ofSeconds(20), "the move aborted once namenode 1 answered",
                    () -> cluster.namenode(0).service().namespace().openMoves().isEmpty());
            assertThat(TestFiles.read(client, src)).isEqualTo(data);
            assertThat(exists(client, dst)).isFalse();
        }
    }
}
