package io.tarn.client;

import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.FileExistsException;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.namenode.blocks.DatanodeInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static io.tarn.client.TestFiles.nameOf;
import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Files renamed to names another namenode owns, over real sockets with data on real DRAM
 * datanodes: the file moves to the namenode of its new name with its data, its blocks stay where
 * they are and are freed at the namenode that allocated them, and concurrent renames never show a
 * file twice or lose it (docs/partitioning.md).
 */
class CrossNamenodeRenameTest {
    private static final int BLOCK = 64 << 10;

    private static MiniCluster cluster(int namenodes) throws IOException {
        return MiniCluster.builder().namenodes(namenodes).datanodes(2).set(TarnKeys.BLOCK_SIZE, (long) BLOCK).start();
    }

    /** Free blocks at each namenode, over every datanode's share it manages. */
    private static List<Long> freeBlocks(MiniCluster cluster) {
        List<Long> free = new ArrayList<>();
        for (int p = 0; p < cluster.namenodeCount(); p++) {
            long atP = 0;
            for (DatanodeInfo dn : cluster.namenode(p).service().datanodes().all()) {
                atP += dn.freeBlocks();
            }
            free.add(atP);
        }
        return free;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void aFileMovesWithItsDataAndItsBlocksGoHomeWhenItIsDeleted(int n) throws Exception {
        try (MiniCluster cluster = cluster(n); TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/job/_temporary");
            client.mkdirs("/job/out");
            List<Long> freeAtStart = freeBlocks(cluster);
            String a = "/job/_temporary/" + nameOf(0, n, "attempt-", 0);
            String b = "/job/out/" + nameOf(n - 1, n, "part-", 0);
            String c = "/job/out/" + nameOf(0, n, "final-", 0);
            byte[] data = StreamsTest.random(3 * BLOCK + 123, 1);
            write(client, a, data);
            FileStatus before = client.getStatus(a);

            client.rename(a, b);
            assertThat(client.exists(a)).isFalse();
            FileStatus moved = client.getStatus(b);
            assertThat(FileIds.partition(moved.fileId())).isEqualTo(n - 1);
            assertThat(moved.size()).isEqualTo(data.length);
            assertThat(moved.modificationTime()).isEqualTo(before.modificationTime());
            assertThat(read(client, b)).isEqualTo(data);
            // Tokens carry the time they were issued in: lookups a stamp apart differ in them alone.
            assertThat(client.getBlocks(before.fileId(), 0, 100)).as("asked by its old id, the file is followed")
                    .hasSize(4).usingRecursiveFieldByFieldElementComparatorIgnoringFields("token", "tokenStamp")
                    .containsExactlyElementsOf(client.getBlocks(moved.fileId(), 0, 100));
            assertThat(client.getBlock(before.fileId(), 3)).usingRecursiveComparison()
                    .ignoringFields("token", "tokenStamp").isEqualTo(client.getBlock(moved.fileId(), 3));
            assertThat(client.list("/job/out")).extracting(FileStatus::name).containsExactly(b.substring(9));
            assertThat(client.list("/job/_temporary")).isEmpty();
            assertThat(cluster.namenode(0).fileCount()).isZero();
            assertThat(cluster.namenode(n - 1).fileCount()).isEqualTo(1);

            // Appending writes into the last (foreign) block, then new blocks of the new namenode.
            byte[] more = StreamsTest.random(BLOCK + 7, 2);
            try (TarnOutputStream out = client.append(b)) {
                out.write(more);
            }
            byte[] all = Arrays.copyOf(data, data.length + more.length);
            System.arraycopy(more, 0, all, data.length, more.length);
            assertThat(read(client, b)).isEqualTo(all);

            client.rename(b, c);
            assertThat(FileIds.partition(client.getStatus(c).fileId())).isZero();
            assertThat(read(client, c)).isEqualTo(all);

            assertThat(client.delete(c, false)).isTrue();
            assertThat(client.exists(c)).isFalse();
            // Blocks freed at one namenode for another travel asynchronously: wait for them.
            Eventually.value(Duration.ofSeconds(10), "every block back at the namenode that allocated it (free blocks"
                    + " per namenode " + freeAtStart + ")", () -> freeBlocks(cluster), freeAtStart::equals);
            for (int p = 0; p < n; p++) {
                assertThat(cluster.namenode(p).fileCount()).isZero();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2})
    void refusedMovesLeaveTheFileWhereItWas(int n) throws Exception {
        try (MiniCluster cluster = cluster(n); TarnClient client = TarnClient.connect(cluster.config())) {
            client.mkdirs("/d");
            String src = "/d/" + nameOf(0, n, "s", 0);
            String taken = "/d/" + nameOf(1, n, "t", 0);
            byte[] data = StreamsTest.random(BLOCK + 1, 3);
            write(client, src, data);
            write(client, taken, new byte[10]);
            assertThatThrownBy(() -> client.rename(src, taken)).isInstanceOf(FileExistsException.class)
                    .hasMessageContaining(taken);
            assertThatThrownBy(() -> client.rename(src, "/nowhere/" + nameOf(1, n, "t", 1)))
                    .isInstanceOf(java.io.FileNotFoundException.class).hasMessageContaining("/nowhere");
            assertThat(read(client, src)).isEqualTo(data);
            assertThat(read(client, taken)).hasSize(10);

            // The namenode of the new name is down: the rename fails naming it, the file stays.
            String second = cluster.namenode(1).address().toString();
            cluster.namenode(1).close();
            assertThatThrownBy(() -> client.rename(src, "/d/" + nameOf(1, n, "t", 3)))
                    .isInstanceOf(IOException.class).hasMessageContaining("namenode 1")
                    .hasMessageContaining(second.substring(second.lastIndexOf(':') + 1));
            assertThat(read(client, src)).isEqualTo(data);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void openStreamsFollowTheirFileToItsNewNamenode(int n) throws Exception {
        try (MiniCluster cluster = cluster(n); TarnClient writer = TarnClient.connect(cluster.config());
             TarnClient other = TarnClient.connect(cluster.config())) {
            String src = "/" + nameOf(0, n, "being-written-", 0);
            String dst = "/" + nameOf(n - 1, n, "renamed-", 0);
            byte[] first = StreamsTest.random(BLOCK + 500, 5);
            byte[] second = StreamsTest.random(2 * BLOCK + 9, 6);
            try (TarnOutputStream out = writer.create(src)) {
                out.write(first);
                out.hsync();
                // Another client renames the file while it is being written (HDFS allows it).
                other.rename(src, dst);
                assertThat(other.exists(src)).isFalse();
                assertThat(other.getStatus(dst).underConstruction()).isTrue();
                out.write(second);
            }
            byte[] all = Arrays.copyOf(first, first.length + second.length);
            System.arraycopy(second, 0, all, first.length, second.length);
            FileStatus done = other.getStatus(dst);
            assertThat(done.underConstruction()).isFalse();
            assertThat(done.size()).isEqualTo(all.length);
            assertThat(read(other, dst)).isEqualTo(all);

            // An append stream renamed before it wrote anything closes at the new namenode.
            String appended = "/" + nameOf(n - 1, n, "appended-", 0);
            try (TarnOutputStream out = writer.append(dst)) {
                other.rename(dst, "/" + nameOf(0, n, "appending-", 0));
                other.rename("/" + nameOf(0, n, "appending-", 0), appended);
            }
            assertThat(other.getStatus(appended).underConstruction()).isFalse();
            other.rename(appended, dst);

            // A reader opened before a move reads on after it: block by block, at the new namenode.
            String back = "/" + nameOf(0, n, "back-", 0);
            try (InputStream in = other.open(dst)) {
                byte[] head = in.readNBytes(100);
                writer.rename(dst, back);
                byte[] rest = in.readAllBytes();
                byte[] got = Arrays.copyOf(head, head.length + rest.length);
                System.arraycopy(rest, 0, got, head.length, rest.length);
                assertThat(got).isEqualTo(all);
            }
            assertThat(FileIds.partition(other.getStatus(back).fileId())).isZero();
        }
    }

    /**
     * Several clients rename files back and forth between names of every namenode, two of them
     * always racing for the same file, while another lists the directory. Each rename either
     * happens or fails because the other client moved the file first; at the end every file exists
     * exactly once, under the name the successful renames say, with its data.
     */
    @ParameterizedTest
    @ValueSource(ints = {4})
    void concurrentRenamesNeverDuplicateOrLoseAFile(int n) throws Exception {
        try (MiniCluster cluster = cluster(n); TarnClient a = TarnClient.connect(cluster.config());
             TarnClient b = TarnClient.connect(cluster.config());
             TarnClient lister = TarnClient.connect(cluster.config())) {
            a.mkdirs("/race");
            int files = 8;
            int rounds = 25;
            Map<Integer, byte[]> data = new HashMap<>();
            for (int f = 0; f < files; f++) {
                data.put(f, StreamsTest.random(100 + f * 1000, f));
                write(a, "/race/f" + f + "-0", data.get(f));
            }
            // round[f]: the last round file f completed (it is then called /race/f<f>-<round>).
            AtomicIntegerArray round = new AtomicIntegerArray(files);
            ExecutorService pool = Executors.newFixedThreadPool(3);
            AtomicInteger moves = new AtomicInteger();
            List<String> listingProblems = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(2);
            List<Future<?>> work = new ArrayList<>();
            for (TarnClient client : List.of(a, b)) {
                int side = client == a ? 1 : 2;
                work.add(pool.submit(() -> {
                    try {
                        Random random = new Random(side);
                        for (int r = 1; r <= rounds; r++) {
                            for (int f = 0; f < files; f++) {
                                // Both clients try to move file f from its round r-1 name; one wins.
                                String from = "/race/f" + f + "-" + (r - 1);
                                String via = "/race/f" + f + "-" + r + "-by" + side + "-" + random.nextInt(1000);
                                try {
                                    client.rename(from, via);
                                    moves.incrementAndGet();
                                    client.rename(via, "/race/f" + f + "-" + r);
                                    round.set(f, r);
                                } catch (java.io.FileNotFoundException lost) {
                                    // The other client moved it first: wait until it has finished round r.
                                    int file = f;
                                    int wanted = r;
                                    Eventually.value(Duration.ofSeconds(30), "the round file " + f
                                            + " last finished to reach " + r, () -> round.get(file),
                                            finished -> finished >= wanted);
                                }
                            }
                        }
                    } finally {
                        done.countDown();
                    }
                    return null;
                }));
            }
            work.add(pool.submit(() -> {
                while (done.getCount() > 0) {
                    List<String> names = lister.list("/race").stream().map(FileStatus::name).toList();
                    if (names.size() != names.stream().distinct().count()) {
                        listingProblems.add("a name listed twice: " + names);
                    }
                }
                return null;
            }));
            for (Future<?> w : work) {
                w.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(listingProblems).isEmpty();
            assertThat(moves.get()).as("one winner per file and round").isEqualTo(files * rounds);
            List<String> names = a.list("/race").stream().map(FileStatus::name).sorted().toList();
            List<String> expected = new ArrayList<>();
            for (int f = 0; f < files; f++) {
                expected.add("f" + f + "-" + rounds);
            }
            assertThat(names).containsExactlyInAnyOrderElementsOf(expected);
            for (int f = 0; f < files; f++) {
                assertThat(read(b, "/race/f" + f + "-" + rounds)).as("file %d", f).isEqualTo(data.get(f));
            }
            long total = 0;
            for (int p = 0; p < n; p++) {
                total += cluster.namenode(p).fileCount();
            }
            assertThat(total).as("no copy left behind on any namenode").isEqualTo(files);
        }
    }
}
