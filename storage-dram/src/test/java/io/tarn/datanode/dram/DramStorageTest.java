package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.DramMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

class DramStorageTest {
    private static final long MIB = 1 << 20;

    @TempDir
    Path root;

    private TarnConfig config(DramMode mode, Path path, long capacity) {
        return TarnConfig.builder()
                .set(TarnKeys.BLOCK_SIZE, 64L << 10)
                .set(TarnKeys.DRAM_REGION_SIZE, MIB)
                .set(TarnKeys.DRAM_CAPACITY, capacity)
                .set(TarnKeys.DRAM_MODE, mode)
                .set(TarnKeys.DRAM_PATH, path.toString())
                .build();
    }

    private static byte[] read(DramStorage s, int region, long offset, int length) {
        ByteBuf b = s.regions().read(region, offset, length);
        try {
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    @Test
    void mmapModeMapsRegionFilesInAStorageDirectoryUnderThePath() throws IOException {
        DramStorage s = DramStorage.open(config(DramMode.MMAP, root, 3 * MIB));
        assertThat(s.backing()).isEqualTo(DramMode.MMAP);
        assertThat(s.intact()).isFalse();
        assertThat(s.regions().regionCount()).isEqualTo(3);
        assertThat(s.regions().regionSize()).isEqualTo(MIB);
        Path dir = s.directory().orElseThrow();
        assertThat(dir.getParent()).isEqualTo(root);
        assertThat(dir.getFileName().toString()).isEqualTo(s.storageId().toString());
        assertThat(MappedRegions.whyNotMatching(dir, 3, MIB)).isNull();
        assertThat(dir.resolve(DramStorage.GENERATIONS_FILE)).exists();
        s.close(true);
        assertThat(dir).doesNotExist();
    }

    @Test
    void aReleasedStorageIsReusedWithItsDataAndGenerations() throws IOException {
        DramStorage first = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        first.regions().write(1, 5000, Unpooled.wrappedBuffer(new byte[] {9, 8, 7}), 0, 3);
        first.generations(64 << 10).advance(1, 0, 12);
        first.close(false);

        DramStorage second = DramStorage.open(config(DramMode.AUTO, root, 2 * MIB));
        assertThat(second.intact()).isTrue();
        assertThat(second.storageId()).isEqualTo(first.storageId());
        assertThat(read(second, 1, 5000, 3)).containsExactly(9, 8, 7);
        assertThat(second.generations(64 << 10).get(1, 0)).isEqualTo(12);
        second.close(true);
    }

    @Test
    void aRegionFileCutShortTakesItsRegionOutOfServiceWithoutTouchingItsMemory() throws IOException {
        DramStorage s = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        s.regions().write(1, 10, Unpooled.wrappedBuffer(new byte[] {4, 5}), 0, 2);
        assertThat(s.checkRegions()).as("nothing happened yet").isEmpty();
        Path file = MappedRegions.file(s.directory().orElseThrow(), 0);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }
        assertThat(s.checkRegions()).singleElement().satisfies(l -> {
            assertThat(l.region()).isZero();
            assertThat(l.why()).contains(file.toString()).contains("was cut to 100 bytes");
        });
        assertThat(s.regions().failure(0)).contains("was cut to 100 bytes");
        assertThat(s.checkRegions()).as("reported once").isEmpty();
        // An access would fault on the missing pages; it is refused instead, and the JVM lives on.
        assertThatThrownBy(() -> s.regions().read(0, 0, 8)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("region 0 is out of service");
        assertThatThrownBy(() -> s.regions().write(0, 0, Unpooled.wrappedBuffer(new byte[8]), 0, 8))
                .hasMessageContaining("out of service");
        assertThat(s.regions().failure(1)).isNull();
        assertThat(read(s, 1, 10, 2)).containsExactly(4, 5);
        s.close(true);
    }

    @Test
    void aRegionFileRemovedOrReplacedIsStillServedButNotShared() throws IOException {
        DramStorage s = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        s.regions().write(0, 0, Unpooled.wrappedBuffer(new byte[] {1, 2}), 0, 2);
        s.regions().write(1, 0, Unpooled.wrappedBuffer(new byte[] {3, 4}), 0, 2);
        Path dir = s.directory().orElseThrow();
        Files.delete(MappedRegions.file(dir, 0));
        Path other = Files.write(root.resolve("impostor"), new byte[(int) MIB]);
        Files.move(other, MappedRegions.file(dir, 1), StandardCopyOption.REPLACE_EXISTING);
        assertThat(s.checkRegions()).as("the mappings still hold the memory").isEmpty();
        assertThat(s.regions().notShareable(0)).contains("region-00000 was removed");
        assertThat(s.regions().notShareable(1)).contains("region-00001 was replaced by another file");
        assertThat(s.regions().failure(0)).isNull();
        assertThat(read(s, 0, 0, 2)).containsExactly(1, 2);
        assertThat(read(s, 1, 0, 2)).containsExactly(3, 4);
        s.close(true);
    }

    @Test
    void aRegionFileCutShortWhileStoppedIsMadeWholeWithItsGenerationsForgotten() throws IOException {
        DramStorage first = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        first.regions().write(1, 7, Unpooled.wrappedBuffer(new byte[] {6}), 0, 1);
        first.generations(64 << 10).advance(0, 3, 5);
        first.generations(64 << 10).advance(1, 0, 9);
        first.close(false);
        Path dir = first.directory().orElseThrow();
        try (FileChannel ch = FileChannel.open(MappedRegions.file(dir, 0), StandardOpenOption.WRITE)) {
            ch.truncate(4096);
        }

        DramStorage second = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        assertThat(second.intact()).as("the other region kept its data").isTrue();
        assertThat(second.storageId()).isEqualTo(first.storageId());
        assertThat(Files.size(MappedRegions.file(dir, 0))).isEqualTo(MIB);
        assertThat(second.generations(64 << 10).get(0, 3)).as("the report shows the region's blocks lost").isZero();
        assertThat(second.generations(64 << 10).get(1, 0)).isEqualTo(9);
        assertThat(read(second, 1, 7, 1)).containsExactly(6);
        assertThat(read(second, 0, MIB - 8, 8)).as("made whole with zeros").containsOnly(0);
        assertThat(second.regions().failure(0)).isNull();
        second.close(false);

        Files.delete(MappedRegions.file(dir, 1));
        DramStorage third = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        assertThat(third.storageId()).as("a missing file is made again too").isEqualTo(first.storageId());
        assertThat(third.generations(64 << 10).get(1, 0)).isZero();
        third.close(true);
    }

    @Test
    void storageWithOtherGeometryIsNotReused() throws IOException {
        DramStorage first = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        first.close(false);

        DramStorage bigger = DramStorage.open(config(DramMode.MMAP, root, 4 * MIB));
        assertThat(bigger.intact()).isFalse();
        assertThat(bigger.storageId()).isNotEqualTo(first.storageId());
        assertThat(first.directory().orElseThrow()).as("left for an operator to inspect").exists();
        bigger.close(true);
    }

    @Test
    void storageWithoutAGenerationTableIsNotReused() throws IOException {
        DramStorage first = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        first.close(false);
        Files.delete(first.directory().orElseThrow().resolve(DramStorage.GENERATIONS_FILE));

        DramStorage second = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        assertThat(second.intact()).isFalse();
        assertThat(second.storageId()).isNotEqualTo(first.storageId());
        second.close(true);
    }

    @Test
    void liveStoragesSharingAPathGetTheirOwnDirectories() throws IOException {
        DramStorage a = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        DramStorage b = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        assertThat(b.storageId()).isNotEqualTo(a.storageId());
        assertThat(b.intact()).isFalse();
        a.close(true);
        b.close(true);
        try (var entries = Files.list(root)) {
            assertThat(entries).isEmpty();
        }
    }

    @Test
    void autoFallsBackToDirectMemoryWhenThePathIsUnusable() throws IOException {
        Path file = Files.createFile(root.resolve("a-file"));
        DramStorage s = DramStorage.open(config(DramMode.AUTO, file.resolve("sub"), 2 * MIB));
        assertThat(s.backing()).isEqualTo(DramMode.DIRECT);
        assertThat(s.directory()).isEmpty();
        s.regions().write(0, 0, Unpooled.wrappedBuffer(new byte[] {1}), 0, 1);
        assertThat(read(s, 0, 0, 1)).containsExactly(1);
        s.close(true);
    }

    @Test
    void mmapModeRefusesToStartOnAnUnusablePathAndSaysWhy() throws IOException {
        Path file = Files.createFile(root.resolve("a-file"));
        assertThatThrownBy(() -> DramStorage.open(config(DramMode.MMAP, file.resolve("sub"), 2 * MIB)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("tarn.datanode.dram.mode = mmap")
                .hasMessageContaining(file.resolve("sub").toString())
                .hasMessageContaining("use mode auto or direct");
    }

    @Test
    void directModeNeverTouchesThePath() throws IOException {
        Path path = root.resolve("never");
        DramStorage s = DramStorage.open(config(DramMode.DIRECT, path, 2 * MIB));
        assertThat(s.backing()).isEqualTo(DramMode.DIRECT);
        assertThat(s.intact()).isFalse();
        assertThat(path).doesNotExist();
        s.close(true);
    }

    @Test
    void aDifferentNamenodeBlockSizeStartsAFreshGenerationTable() throws IOException {
        DramStorage s = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        s.generations(64 << 10).advance(0, 1, 5);
        assertThat(s.generations(64 << 10).get(0, 1)).isEqualTo(5);
        var bigger = s.generations(128 << 10);
        assertThat(bigger.blockSize()).isEqualTo(128 << 10);
        assertThat(bigger.get(0, 1)).isZero();
        bigger.advance(0, 1, 6);
        s.close(false);

        DramStorage again = DramStorage.open(config(DramMode.MMAP, root, 2 * MIB));
        assertThat(again.intact()).isTrue();
        assertThat(again.generations(128 << 10).get(0, 1)).as("the new table was persisted").isEqualTo(6);
        again.close(true);
    }

    @Test
    void theHugePagePoolCountsPagesNeitherUsedNorPromised() throws IOException {
        Path pool = Files.createDirectories(root.resolve("hugepages-2048kB"));
        Files.writeString(pool.resolve("free_hugepages"), "10\n");
        Files.writeString(pool.resolve("resv_hugepages"), "3\n");
        assertThat(DramStorage.hugePoolBytes(pool, 2 * MIB)).isEqualTo(7 * 2 * MIB);
        Files.writeString(pool.resolve("resv_hugepages"), "12\n");
        assertThat(DramStorage.hugePoolBytes(pool, 2 * MIB)).as("more promised than free").isZero();
        assertThat(DramStorage.hugePoolBytes(root.resolve("hugepages-1048576kB"), 1L << 30)).as("no such pool")
                .isZero();
    }

    /** Only a hugetlbfs mount that reports no space is counted by its pool: others report their own. */
    @Test
    void anOrdinaryFileSystemReportsItsOwnFreeSpace() throws IOException {
        FileStore store = Files.getFileStore(root);
        assumeThat(store.type()).isNotEqualTo("hugetlbfs");
        long page = store.getBlockSize();
        Path pools = root.resolve("pools");
        Path pool = Files.createDirectories(pools.resolve("hugepages-" + page / 1024 + "kB"));
        Files.writeString(pool.resolve("free_hugepages"), "5\n");
        Files.writeString(pool.resolve("resv_hugepages"), "0\n");
        long own = store.getUsableSpace();
        // Other processes may write to the file system meanwhile: near its own figure, not the pool's.
        assertThat(DramStorage.usableSpace(store, pools)).isNotEqualTo(5 * page)
                .isBetween(own - 256 * MIB, own + 256 * MIB);
    }

    /**
     * On a real hugetlbfs mount (there is one only where an operator made it, so elsewhere this is
     * skipped): a mount without a size limit reports no space, and the storage counts the free huge
     * pages instead, maps its regions there and keeps bytes in them; regions that do not fill whole
     * huge pages are refused with the key to change.
     */
    @Test
    void regionsGoOnAHugetlbfsMount() throws IOException {
        Path mount = hugetlbfsMount();
        assumeThat(mount).as("a writable hugetlbfs mount (/proc/mounts)").isNotNull();
        FileStore store = Files.getFileStore(mount);
        long page = store.getBlockSize();
        long free = DramStorage.usableSpace(store, Path.of("/sys/kernel/mm/hugepages"));
        if (store.getTotalSpace() == 0) {
            assertThat(free).isEqualTo(DramStorage.hugePoolBytes(
                    Path.of("/sys/kernel/mm/hugepages/hugepages-" + page / 1024 + "kB"), page));
        }
        assumeThat(free).as("free huge pages for two regions").isGreaterThanOrEqualTo(2 * page + 2 * MIB);
        Path path = Files.createTempDirectory(mount, "dram-test-");
        try {
            TarnConfig c = config(DramMode.MMAP, path, 2 * page).toBuilder()
                    .set(TarnKeys.DRAM_REGION_SIZE, page).build();
            DramStorage s = DramStorage.open(c);
            assertThat(s.backing()).isEqualTo(DramMode.MMAP);
            s.regions().write(1, page - 3, Unpooled.wrappedBuffer(new byte[] {4, 5, 6}), 0, 3);
            assertThat(read(s, 1, page - 3, 3)).containsExactly(4, 5, 6);
            s.close(true);

            TarnConfig small = config(DramMode.MMAP, path, 2 * page).toBuilder()
                    .set(TarnKeys.DRAM_REGION_SIZE, page / 2).build();
            assertThatThrownBy(() -> DramStorage.open(small)).isInstanceOf(IOException.class)
                    .hasMessageContaining("regions of " + page / 2 + " bytes do not fill whole huge pages of " + page)
                    .hasMessageContaining("tarn.datanode.dram.region.size");
        } finally {
            try (var files = Files.walk(path)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static Path hugetlbfsMount() throws IOException {
        Path mounts = Path.of("/proc/mounts");
        if (!Files.isReadable(mounts)) {
            return null;
        }
        for (String line : Files.readAllLines(mounts)) {
            String[] f = line.split(" ");
            if (f.length > 2 && f[2].equals("hugetlbfs") && Files.isWritable(Path.of(f[1]))) {
                return Path.of(f[1]);
            }
        }
        return null;
    }
}
