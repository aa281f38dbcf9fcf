package io.tarn.client;

import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnFileNotFoundException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol;
import io.tarn.common.testing.Tmpfs;
import io.tarn.common.security.BlockTokens;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.tarn.client.TestFiles.random;
import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A namenode restarted with {@code tarn.namenode.journal = disk} replays its journal and serves
 * the same namespace: every file name, attribute and block, open files still leased to their
 * writers, and the datanodes, which register again and keep their blocks. Real datanodes, real
 * sockets, a real journal on disk.
 */
class NamenodeRestartTest {
    private static final int BLOCK = 64 << 10;

    @TempDir
    Path tmp;

    private static MiniCluster journaled(int datanodes) throws IOException {
        return MiniCluster.builder().datanodes(datanodes).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK).start();
    }

    private static List<String> names(TarnClient client, String dir) throws IOException {
        List<String> out = new ArrayList<>();
        for (FileStatus s : client.list(dir)) {
            out.add(s.name());
        }
        out.sort(null);
        return out;
    }

    @Test
    void aRestartedNamenodeServesEveryFileItAcknowledged() throws Exception {
        try (MiniCluster cluster = journaled(2);
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] closed = random(3 * BLOCK + 1234, 1);
            byte[] renamed = random(BLOCK / 2, 2);
            byte[] appended = random(BLOCK + 17, 3);
            byte[] more = random(2 * BLOCK, 4);
            client.mkdirs("/a/b");
            write(client, "/a/b/closed", closed);
            write(client, "/a/gone", random(2 * BLOCK, 5));
            write(client, "/a/orig", renamed);
            client.rename("/a/orig", "/a/b/renamed");
            assertThat(client.delete("/a/gone", false)).isTrue();
            write(client, "/appended", appended);
            try (TarnOutputStream out = client.append("/appended")) {
                out.write(more);
            }
            write(client, "/a/overwritten", random(BLOCK, 6));
            byte[] second = random(BLOCK + 5, 7);
            try (TarnOutputStream out = client.create("/a/overwritten", CreateOptions.OVERWRITE)) {
                out.write(second);
            }
            client.setOwner("/a/b", "alice", "staff");
            client.setPermission("/a/b/closed", 0600);
            client.mkdir("/empty", new Ownership("bob", "users", 0700));
            FileStatus closedBefore = client.getStatus("/a/b/closed");
            BlockRef firstBlock = client.getBlock(closedBefore.fileId(), 0);

            cluster.restartNamenode();

            assertThat(names(client, "/")).containsExactly("a", "appended", "empty");
            assertThat(names(client, "/a")).containsExactly("b", "overwritten");
            assertThat(names(client, "/a/b")).containsExactly("closed", "renamed");
            assertThat(read(client, "/a/b/closed")).isEqualTo(closed);
            assertThat(read(client, "/a/b/renamed")).isEqualTo(renamed);
            assertThat(read(client, "/a/overwritten")).isEqualTo(second);
            byte[] whole = new byte[appended.length + more.length];
            System.arraycopy(appended, 0, whole, 0, appended.length);
            System.arraycopy(more, 0, whole, appended.length, more.length);
            assertThat(read(client, "/appended")).isEqualTo(whole);
            assertThat(catchThrowable(() -> client.getStatus("/a/gone"))).isInstanceOf(TarnFileNotFoundException.class);

            FileStatus closedAfter = client.getStatus("/a/b/closed");
            assertThat(closedAfter.fileId()).as("same id").isEqualTo(closedBefore.fileId());
            assertThat(closedAfter.size()).isEqualTo(closed.length);
            assertThat(closedAfter.permission()).isEqualTo(0600);
            assertThat(closedAfter.modificationTime()).isEqualTo(closedBefore.modificationTime());
            assertThat(client.getStatus("/a/b").owner()).isEqualTo("alice");
            FileStatus empty = client.getStatus("/empty");
            assertThat(empty.owner()).isEqualTo("bob");
            assertThat(empty.permission()).isEqualTo(0700);
            BlockRef sameBlock = client.getBlock(closedAfter.fileId(), 0);
            assertThat(sameBlock.datanodeId()).as("datanode ids outlive the restart")
                    .isEqualTo(firstBlock.datanodeId());
            assertThat(sameBlock.regionId()).isEqualTo(firstBlock.regionId());
            assertThat(sameBlock.blockIndex()).isEqualTo(firstBlock.blockIndex());
            assertThat(sameBlock.generation()).isEqualTo(firstBlock.generation());
            assertThat(cluster.namenode().service().tokens().check(firstBlock.token(), firstBlock.tokenStamp(),
                    firstBlock.datanodeId(), firstBlock.regionId(), firstBlock.blockIndex(), firstBlock.generation(),
                    BlockTokens.READ)).as("the token key outlives the restart").isEqualTo(BlockTokens.Verdict.VALID);

            // New blocks after the restart never reuse a place still held, nor a generation handed out before.
            byte[] fresh = random(6 * BLOCK, 8);
            write(client, "/fresh", fresh);
            assertThat(read(client, "/fresh")).isEqualTo(fresh);
            assertThat(read(client, "/a/b/closed")).isEqualTo(closed);
            assertThat(read(client, "/appended")).isEqualTo(whole);
        }
    }

    /**
     * Checkpoints, asked for and taken in the background once the journal holds
     * tarn.namenode.checkpoint.records records: the segments they cover are deleted, older
     * checkpoints too, and a restart loads the newest and replays the rest of the journal.
     */
    @Test
    void checkpointsShortenTheJournalAndARestartLoadsTheNewest() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK)
                .set(TarnKeys.NAMENODE_CHECKPOINT_RECORDS, 1_000).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            Path journal = Path.of(cluster.namenode().service().journal().directory().toString());
            byte[] first = random(2 * BLOCK + 3, 50);
            write(client, "/c/first", first);
            long covered = cluster.namenode().checkpoint();
            assertThat(covered).isPositive();
            client.rename("/c/first", "/c/renamed");
            write(client, "/c/second", random(BLOCK, 51));
            assertThat(client.delete("/c/second", false)).isTrue();
            for (int i = 0; i < 1_200; i++) { // past tarn.namenode.checkpoint.records: one in the background
                client.mkdirs("/many/d" + i);
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (JournalCheckpointFiles.newest(journal) <= covered + 1_000 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            long background = JournalCheckpointFiles.newest(journal);
            assertThat(background).as("a checkpoint taken in the background").isGreaterThan(covered + 1_000);
            byte[] third = random(BLOCK / 3, 52);
            write(client, "/c/third", third);

            cluster.restartNamenode();

            assertThat(names(client, "/c")).containsExactly("renamed", "third");
            assertThat(read(client, "/c/renamed")).isEqualTo(first);
            assertThat(read(client, "/c/third")).isEqualTo(third);
            assertThat(client.list("/many")).hasSize(1_200);
            assertThat(JournalCheckpointFiles.count(journal)).as("older checkpoints deleted").isEqualTo(1);
            AdminProtocol.JournalHealth health = client.clusterStatus().journal();
            assertThat(health.disk()).isTrue();
            assertThat(health.directory()).isEqualTo(journal.toString());
            assertThat(health.checkpointSeq()).as("the checkpoint found at start").isEqualTo(background);
            assertThat(health.lastSeq()).isGreaterThan(background);
            assertThat(health.failed()).isFalse();
            assertThat(JournalCheckpointFiles.oldestSegment(journal)).as("segments it covers deleted")
                    .isGreaterThan(background);
        }
    }

    /**
     * Files of replication 3 across a namenode restart: their block groups come back from the
     * journal with their members, the datanodes (which kept hosting the groups) register again, the
     * files read back byte for byte, a writer goes on, and new files get new groups.
     */
    @Test
    void replicatedFilesComeBackWithTheirGroups() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(4).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] closed = random(3 * BLOCK + 11, 60);
            try (TarnOutputStream out = client.create("/r/closed", CreateOptions.DEFAULT.withReplication(3))) {
                out.write(closed);
            }
            byte[] open = random(2 * BLOCK + 5, 61);
            TarnOutputStream writer = client.create("/r/open", CreateOptions.DEFAULT.withReplication(3));
            writer.write(open, 0, BLOCK);
            writer.hsync();
            long group = client.getBlock(client.getStatus("/r/closed").fileId(), 0).group().groupId();

            cluster.restartNamenode();

            assertThat(read(client, "/r/closed")).isEqualTo(closed);
            assertThat(client.getBlock(client.getStatus("/r/closed").fileId(), 0).group().groupId())
                    .as("the same group").isEqualTo(group);
            writer.write(open, BLOCK, open.length - BLOCK);
            writer.close();
            assertThat(read(client, "/r/open")).isEqualTo(open);
            byte[] fresh = random(4 * BLOCK, 62);
            try (TarnOutputStream out = client.create("/r/fresh", CreateOptions.DEFAULT.withReplication(3))) {
                out.write(fresh);
            }
            assertThat(read(client, "/r/fresh")).isEqualTo(fresh);
            assertThat(client.getStatus("/r/fresh").replication()).isEqualTo(3);
        }
    }

    /**
     * A file being written when the namenode restarts is still leased to its writer, at the size
     * the writer last reported stored; the writer goes on and closes it, and every byte is there.
     */
    @Test
    void aWriterGoesOnAcrossTheRestart() throws Exception {
        try (MiniCluster cluster = journaled(1);
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] data = random(5 * BLOCK + 99, 11);
            TarnOutputStream out = client.create("/open");
            out.write(data, 0, 2 * BLOCK + 10);
            out.hsync();

            cluster.restartNamenode();

            FileStatus during = client.getStatus("/open");
            assertThat(during.underConstruction()).isTrue();
            assertThat(during.size()).as("the size its writer reported stored").isEqualTo(2 * BLOCK + 10);
            out.write(data, 2 * BLOCK + 10, data.length - (2 * BLOCK + 10));
            out.close();
            assertThat(client.getStatus("/open").size()).isEqualTo(data.length);
            assertThat(read(client, "/open")).isEqualTo(data);
        }
    }

    /** A reader that opened a file before the restart reads the rest of it after, with the tokens it holds. */
    @Test
    void aReaderGoesOnAcrossTheRestart() throws Exception {
        try (MiniCluster cluster = journaled(1);
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] data = random(8 * BLOCK, 12);
            write(client, "/read", data);
            try (TarnInputStream in = client.open("/read")) {
                byte[] back = new byte[data.length];
                int first = in.readNBytes(back, 0, BLOCK + 7);
                cluster.restartNamenode();
                int rest = in.readNBytes(back, first, data.length - first);
                assertThat(first + rest).isEqualTo(data.length);
                assertThat(back).isEqualTo(data);
            }
        }
    }

    /**
     * A datanode that stopped without keeping its data while the namenode ran: the namenode recorded
     * it, so after a restart its files' blocks are lost (DATA_LOST), never served from whatever the
     * datanode holds now; files on the other datanode are served.
     */
    @Test
    void blocksADatanodeDroppedStayLostAfterTheRestart() throws Exception {
        try (MiniCluster cluster = journaled(2);
             TarnClient client = TarnClient.connect(cluster.config())) {
            List<byte[]> data = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                data.add(random(BLOCK, 20 + i));
                write(client, "/f" + i, data.get(i));
            }
            int dropped = cluster.datanode(0).datanodeId();
            cluster.stopDatanode(0); // a clean stop that deletes its region files
            cluster.restartNamenode();
            int lost = 0;
            for (int i = 0; i < 6; i++) {
                BlockRef where;
                try {
                    where = client.getBlock(client.getStatus("/f" + i).fileId(), 0);
                } catch (IOException e) {
                    assertThat(((TarnError) e).code()).as(e.getMessage()).isEqualTo(ErrorCode.DATA_LOST);
                    lost++;
                    continue;
                }
                assertThat(where.datanodeId()).isNotEqualTo(dropped);
                assertThat(read(client, "/f" + i)).isEqualTo(data.get(i));
            }
            assertThat(lost).as("files on the datanode that dropped its data").isBetween(1, 5);
        }
    }

    /**
     * The journal's disk fills up: every change is refused with NAMESPACE_READ_ONLY, saying why,
     * while lookups and reads go on; restarted on a disk with room, the namenode serves every
     * change it acknowledged before.
     */
    @Test
    void aFullJournalDiskRefusesChangesAndKeepsServingLookups() throws Exception {
        try (Tmpfs disk = Tmpfs.mount(tmp.resolve("nn"), "256k");
             MiniCluster cluster = MiniCluster.builder().set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                     .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK)
                     .set(TarnKeys.NAMENODE_JOURNAL_DIR, disk.path().resolve("journal").toString()).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] data = random(BLOCK, 40);
            write(client, "/kept", data);
            List<String> acknowledged = new ArrayList<>();
            IOException refused = null;
            String name = "x".repeat(200);
            for (int i = 0; i < 10_000 && refused == null; i++) {
                try {
                    client.mkdirs("/d/" + name + i);
                    acknowledged.add(name + i);
                } catch (IOException e) {
                    refused = e;
                }
            }
            assertThat(refused).as("the journal's disk filled up").isNotNull();
            assertThat(((TarnError) refused).code()).as(refused.getMessage())
                    .isEqualTo(ErrorCode.NAMESPACE_READ_ONLY);
            assertThat(refused).hasMessageContaining("journal").hasMessageContaining("restart");
            assertThat(client.clusterStatus().journal().failure()).as("tarn status shows why")
                    .contains("No space left on device");
            IOException again = (IOException) catchThrowable(() -> client.mkdirs("/later"));
            assertThat(((TarnError) again).code()).isEqualTo(ErrorCode.NAMESPACE_READ_ONLY);
            assertThat(read(client, "/kept")).as("reads go on").isEqualTo(data);
            assertThat(client.getStatus("/d/" + acknowledged.get(0)).isDirectory()).isTrue();

            // Room again (the journal moves to a bigger disk): every acknowledged change is there.
            Path moved = tmp.resolve("bigger");
            cluster.namenode().close();
            copyTree(disk.path().resolve("journal"), moved);
            cluster.reconfigureNamenode(TarnKeys.NAMENODE_JOURNAL_DIR, moved.toString());
            cluster.restartNamenode();
            assertThat(names(client, "/d")).containsAll(acknowledged);
            assertThat(read(client, "/kept")).isEqualTo(data);
            client.mkdirs("/later");
            assertThat(client.exists("/later")).isTrue();
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (!f.getFileName().toString().equals("in_use.lock")) {
                    Files.copy(f, to.resolve(f.getFileName()));
                }
            }
        }
    }

    /**
     * With tarn.namenode.journal = none a restarted namenode starts empty, as
     * documented; a reader that opened a file before is told why its block is refused: the
     * namenode restarted without its journal and changed its token key.
     */
    @Test
    void withoutAJournalARestartedNamenodeStartsEmpty() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.NONE).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            write(client, "/scratch", random(4 * BLOCK, 30));
            try (TarnInputStream in = client.open("/scratch")) {
                in.readNBytes(BLOCK / 2);
                cluster.restartNamenode();
                assertThat(client.list("/")).isEmpty();
                Throwable t = catchThrowable(in::readAllBytes);
                assertThat(t).isInstanceOf(IOException.class).hasMessageContaining("restarted without its journal");
            }
        }
    }

    /** The same over TCP: the datanode says the token is of the namenode's former key. */
    @Test
    void withoutAJournalATokenFromBeforeTheRestartIsRefusedNamingIt() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.NONE).start();
             TarnClient client = TarnClient.connect(cluster.config().toBuilder()
                     .set(TarnKeys.CLIENT_SHORTCIRCUIT, ShortCircuitMode.OFF)
                     .set(TarnKeys.CLIENT_READAHEAD, (long) BLOCK).build())) {
            write(client, "/scratch", random(16 * BLOCK, 31));
            try (TarnInputStream in = client.open("/scratch")) {
                in.readNBytes(BLOCK / 2);
                cluster.restartNamenode();
                Throwable t = catchThrowable(in::readAllBytes);
                assertThat(t).isInstanceOf(TarnError.class).hasMessageContaining("restarted without its journal");
                assertThat(((TarnError) t).code()).as(t.getMessage()).isEqualTo(ErrorCode.INVALID_TOKEN);
            }
        }
    }
}
