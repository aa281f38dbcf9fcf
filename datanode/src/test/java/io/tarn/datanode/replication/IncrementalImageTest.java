package io.tarn.datanode.replication;

import io.tarn.datanode.GenerationTable;
import io.tarn.replication.CheckpointMeta;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import io.tarn.replication.host.ByteImage;
import io.tarn.replication.host.ChunkedImage;
import io.tarn.replication.host.FileImageStore;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.JournalFixtures;
import io.tarn.replication.host.JournalLostException;
import io.tarn.replication.host.JournalWriter;

/**
 * Images rewritten in place: a capture knows which pages changed since an earlier capture of its
 * store, and an image saved by rewriting only those pages of the older image's file reads back
 * identical to the live state, checksummed page by page.
 */
class IncrementalImageTest {

    private static final int BLOCK = 64 * 1024;
    private static final int BLOCKS = 16;
    private static final int REGION = BLOCKS * BLOCK;
    private static final CheckpointMeta META = new CheckpointMeta(1, List.of(), Map.of());

    @TempDir
    Path dir;

    private static RegionGroupStore store() {
        return new RegionGroupStore(new HeapRegions(1, REGION), GenerationTable.inMemory(REGION, 1, BLOCK), 0, BLOCK);
    }

    private static void randomWrite(RegionGroupStore s, SplittableRandom r, long index) {
        int block = r.nextInt(BLOCKS);
        int length = 1 + r.nextInt(r.nextBoolean() ? 100 : 9000);
        int offset = r.nextInt(BLOCK - length + 1);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) ('a' + r.nextInt(26)));
        }
        s.apply(RegionGroupStoreTest.entry(index, (long) block * BLOCK + offset, 1 + r.nextInt(1000),
                text.toString()));
    }

    private static byte[] bytes(ChunkedImage image) {
        return ByteImage.of(image).toByteArray();
    }

    @Property(tries = 30)
    void savingOnlyTheChangedPagesOfAnOlderImageGivesTheLiveState(@ForAll long seed,
                                                                   @ForAll @IntRange(min = 1, max = 8) int rounds)
            throws Exception {
        Path d = Files.createTempDirectory("tarn-images"); // jqwik does not fill @TempDir
        try {
            saveRounds(new FileImageStore(d), seed, rounds);
        } finally {
            try (Stream<Path> files = Files.list(d)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.delete(f);
                }
            }
            Files.delete(d);
        }
    }

    private static void saveRounds(FileImageStore images, long seed, int rounds) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        RegionGroupStore s = store();
        long index = 1;
        for (int i = r.nextInt(30); i > 0; i--) {
            randomWrite(s, r, index++);
        }
        ChunkedImage first = (ChunkedImage) s.capture(META);
        images.save(1, first);
        long baseId = 1;
        long baseEpoch = first.epoch();
        for (int round = 0; round < rounds; round++) {
            for (int i = r.nextInt(20); i > 0; i--) {
                randomWrite(s, r, index++);
            }
            ChunkedImage capture = (ChunkedImage) s.capture(META);
            BitSet changed = capture.changedSince(baseEpoch);
            assertThat(changed).isNotNull();
            long id = baseId + 1;
            images.saveChanged(baseId, id, capture, changed);
            assertThat(Files.exists(images.file(baseId))).as("the older file became the new one").isFalse();
            assertThat(bytes((ChunkedImage) images.load(id))).isEqualTo(bytes(capture));
            baseId = id;
            baseEpoch = capture.epoch();
        }
    }

    @Test
    void onlyPagesWrittenSinceACaptureAreChangedAndARestoreChangesThemAll() {
        RegionGroupStore s = store();
        ChunkedImage c1 = (ChunkedImage) s.capture(META);
        assertThat(c1.changedSince(c1.epoch())).isEqualTo(new BitSet());
        s.apply(RegionGroupStoreTest.entry(1, 3L * BLOCK + 5000, 7, "x".repeat(5000)));
        ChunkedImage c2 = (ChunkedImage) s.capture(META);
        long header = (long) BLOCKS * Integer.BYTES;
        int firstPage = (int) ((header + 3L * BLOCK + 5000) / ChunkedImage.PAGE_BYTES);
        int lastPage = (int) ((header + 3L * BLOCK + 9999) / ChunkedImage.PAGE_BYTES);
        BitSet expected = new BitSet();
        expected.set(firstPage, lastPage + 1);
        expected.set(0); // the block's generation lives in the header page
        assertThat(c2.changedSince(c1.epoch())).isEqualTo(expected);
        assertThat(c2.changedSince(c2.epoch())).isEqualTo(new BitSet());
        assertThat(c1.changedSince(0)).as("not a capture of this store: unknown").isNull();

        RegionGroupStore other = store();
        s.restore(new io.tarn.replication.Checkpoint(META, other.capture(META)));
        ChunkedImage c3 = (ChunkedImage) s.capture(META);
        assertThat(c3.changedSince(c2.epoch())).as("a restore changes every page").isNull();
        assertThat(c3.changedSince(c3.epoch())).isEqualTo(new BitSet());
    }

    @Test
    void aDamagedPageOrTableIsDetectedAndAMissingBaseMeansAWholeSave() throws Exception {
        FileImageStore images = new FileImageStore(dir);
        RegionGroupStore s = store();
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 1; i < 50; i++) {
            randomWrite(s, r, i);
        }
        ChunkedImage c = (ChunkedImage) s.capture(META);
        images.saveChanged(41, 42, c, new BitSet());
        assertThat(bytes((ChunkedImage) images.load(42))).as("no base: saved whole").isEqualTo(bytes(c));

        Path file = images.file(42);
        long size = Files.size(file);
        byte[] original = Files.readAllBytes(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~original[(int) (size - 10)]}), size - 10);
        }
        assertThatThrownBy(() -> images.load(42)).isInstanceOf(IOException.class)
                .hasMessageContaining("damaged: page " + ((REGION + BLOCKS * 4 - 10) / ChunkedImage.PAGE_BYTES));
        Files.write(file, original);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~original[30]}), 30);
        }
        assertThatThrownBy(() -> images.load(42)).isInstanceOf(IOException.class)
                .hasMessageContaining("page checksums do not match");
        Files.write(file, original);
        assertThat(bytes((ChunkedImage) images.load(42))).isEqualTo(bytes(c));
    }

    @Test
    void ownCheckpointsThroughTheJournalKeepTwoImageFilesAndRecoverTheLatest() throws Exception {
        RegionGroupStore s = store();
        SplittableRandom r = new SplittableRandom(8);
        JournalFixtures.Recorder rec = new JournalFixtures.Recorder();
        long id = 1;
        long index = 1;
        ChunkedImage last = null;
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal j = GroupJournal.open(7, dir, io.tarn.replication.PersistentState.initialVoter(), writer)) {
            for (int round = 1; round <= 6; round++) {
                for (int i = 0; i < 10; i++) {
                    randomWrite(s, r, index++);
                }
                last = (ChunkedImage) s.capture(META);
                CheckpointMeta meta = new CheckpointMeta(index - 1, List.of(), Map.of());
                JournalFixtures.appendAll(j, List.of(new io.tarn.replication.DiskOp.SaveCheckpoint(id++,
                        new io.tarn.replication.Checkpoint(meta, last), index - 1)));
                rec.await(7, (int) id - 1);
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (j.checkpointPending()) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    Thread.sleep(2);
                }
                assertThat(imageFiles()).hasSizeLessThanOrEqualTo(2);
            }
        }
        assertThat(rec.failures).isEmpty();
        try (JournalWriter writer = new JournalWriter(64, new JournalFixtures.Recorder());
             GroupJournal j = GroupJournal.open(7, dir, io.tarn.replication.PersistentState.initialVoter(), writer)) {
            io.tarn.replication.Checkpoint cp = j.recovered().checkpoint();
            assertThat(cp.meta().index()).isEqualTo(index - 1);
            assertThat(bytes((ChunkedImage) cp.image())).isEqualTo(bytes(last));
        }
    }

    @Test
    void aJournalWhoseImageIsDamagedStartsAgainWipedWithItsFilesSetAside() throws Exception {
        ownCheckpointsThroughTheJournalKeepTwoImageFilesAndRecoverTheLatest();
        Path image;
        try (Stream<Path> files = Files.list(dir)) {
            // The recorded image is the newest file (ids increase).
            image = files.filter(p -> p.getFileName().toString().startsWith("image-"))
                    .max(java.util.Comparator.comparingLong(p -> Long.parseLong(
                            p.getFileName().toString().replaceAll("\\D", "")))).orElseThrow();
        }
        long size = Files.size(image);
        try (FileChannel ch = FileChannel.open(image, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), size - 100);
        }
        try (JournalWriter writer = new JournalWriter(64, new JournalFixtures.Recorder())) {
            assertThatThrownBy(() -> GroupJournal.open(7, dir, io.tarn.replication.PersistentState.initialVoter(),
                    writer)).isInstanceOf(JournalLostException.class).hasMessageContaining("wiped replica");
            try (GroupJournal j = GroupJournal.openOrWipe(7, dir, io.tarn.replication.PersistentState.initialVoter(),
                    writer)) {
                assertThat(j.failure()).isNull();
                assertThat(j.recovered()).isEqualTo(io.tarn.replication.PersistentState.wiped());
            }
        }
        List<Path> aside;
        try (Stream<Path> files = Files.list(dir)) {
            aside = files.filter(p -> p.getFileName().toString().startsWith("damaged-")).toList();
        }
        assertThat(aside).hasSize(1);
        try (Stream<Path> files = Files.list(aside.get(0))) {
            assertThat(files.map(p -> p.getFileName().toString()).toList())
                    .contains(image.getFileName().toString()).anyMatch(n -> n.startsWith("segment-"));
        }
    }

    /** Shares memory with its bytes, as a live region image does: what a slice shows may change. */
    private static final class SharedBytes implements ChunkedImage {
        final byte[] bytes;

        SharedBytes(int size) {
            bytes = new byte[size];
        }

        @Override
        public long sizeBytes() {
            return bytes.length;
        }

        @Override
        public io.netty.buffer.ByteBuf slice(long offset, int length) {
            return io.netty.buffer.Unpooled.wrappedBuffer(bytes, (int) offset, length);
        }
    }

    @Test
    void anImageChangingWhileItIsSavedStillLoadsWithMatchingChecksums() throws Exception {
        FileImageStore images = new FileImageStore(dir);
        SharedBytes image = new SharedBytes(3 * ChunkedImage.CHUNK_BYTES);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread writes = new Thread(() -> {
            SplittableRandom r = new SplittableRandom(1);
            while (!stop.get()) {
                image.bytes[r.nextInt(image.bytes.length)] = (byte) r.nextInt();
            }
        });
        writes.start();
        try {
            BitSet all = new BitSet();
            all.set(0, image.bytes.length / ChunkedImage.PAGE_BYTES);
            for (long id = 1; id <= 20; id++) {
                if (id % 2 == 1) {
                    images.save(id, image);
                } else {
                    images.saveChanged(id - 1, id, image, all);
                }
                assertThat(images.load(id).sizeBytes()).isEqualTo(image.bytes.length);
            }
        } finally {
            stop.set(true);
            writes.join();
        }
    }

    private List<String> imageFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("image-")).toList();
        }
    }
}
