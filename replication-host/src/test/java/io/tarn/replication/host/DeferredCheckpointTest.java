package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.replication.host.JournalFixtures.Recorder;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.DiskOp;
import io.tarn.replication.LogEntry;
import io.tarn.replication.PersistentState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.tarn.replication.host.JournalFixtures.appendAll;
import static io.tarn.replication.host.JournalFixtures.model;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A checkpoint of a replica's own state is recorded once its image is saved in the background: the
 * writes after it (of its group and of the others) are acknowledged without waiting for the image,
 * a crash before the record loses nothing, and a capture a restore overtook is never recorded.
 */
class DeferredCheckpointTest {

    private static final PersistentState FRESH = PersistentState.initialVoter();

    @TempDir
    Path tmp;

    /** An own-state image whose reads wait for {@link #release}, and which a test can make stale. */
    private static final class SlowCapture implements ChunkedImage {
        final byte[] bytes;
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch reading = new CountDownLatch(1);
        volatile boolean current = true;

        SlowCapture(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public long sizeBytes() {
            return bytes.length;
        }

        @Override
        public ByteBuf slice(long offset, int length) {
            reading.countDown();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return Unpooled.wrappedBuffer(bytes, (int) offset, length);
        }

        @Override
        public boolean ownState() {
            return true;
        }

        @Override
        public boolean current() {
            return current;
        }
    }

    private static List<DiskOp> entries(long firstId, long firstIndex, int n, SplittableRandom r) {
        List<DiskOp> ops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            LogEntry e = JournalFixtures.write(1, firstIndex + i, r, 300);
            ops.add(new DiskOp.PersistEntries(firstId + i, List.of(e)));
        }
        return ops;
    }

    private static DiskOp.SaveCheckpoint checkpoint(long id, long index, ChunkedImage image) {
        return new DiskOp.SaveCheckpoint(id, new Checkpoint(new CheckpointMeta(index, List.of(), Map.of()), image),
                index);
    }

    private static PersistentState reopen(Path dir) throws Exception {
        try (JournalWriter writer = new JournalWriter(64, new Recorder());
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer, new FileImageStore(dir), 1 << 20)) {
            assertThat(j.failure()).isNull();
            return JournalFixtures.inBytes(j.recovered());
        }
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void writesAfterAnOwnCheckpointAreAcknowledgedWhileItsImageIsSaved() throws Exception {
        SplittableRandom r = new SplittableRandom(11);
        Path dir7 = tmp.resolve("g7");
        Path dir8 = tmp.resolve("g8");
        byte[] imageBytes = new byte[3 * ChunkedImage.CHUNK_BYTES + 5];
        r.nextBytes(imageBytes);
        SlowCapture image = new SlowCapture(imageBytes);
        List<DiskOp> ops = new ArrayList<>(entries(1, 1, 20, r));
        ops.add(checkpoint(21, 20, image));
        ops.addAll(entries(22, 21, 20, r));
        List<DiskOp> other = entries(1, 1, 10, r);
        Recorder rec = new Recorder();
        Path crashed = tmp.resolve("crashed");
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal j7 = GroupJournal.open(7, dir7, FRESH, writer, new FileImageStore(dir7), 1 << 20);
             GroupJournal j8 = GroupJournal.open(8, dir8, FRESH, writer, new FileImageStore(dir8), 1 << 20)) {
            appendAll(j7, ops);
            rec.await(7, 21);
            assertThat(image.reading.await(30, TimeUnit.SECONDS)).isTrue();
            appendAll(j8, other);
            rec.await(7, ops.size());
            rec.await(8, other.size());
            // Every op is durable while the image is still being read: nothing waited for it.
            assertThat(rec.durable(7)).containsExactlyElementsOf(ops.stream().map(DiskOp::id).toList());
            assertThat(rec.durable(8)).hasSize(other.size());
            assertThat(image.release.getCount()).isEqualTo(1);

            // A crash now (a copy of the files as they are) has the old checkpoint and every entry.
            JournalFixtures.copyDir(dir7, crashed);
            assertThat(j7.checkpointPending()).isTrue();
            image.release.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (j7.checkpointPending()) {
                assertThat(System.nanoTime()).as("checkpoint recorded").isLessThan(deadline);
                Thread.sleep(2);
            }
        }
        List<DiskOp> withoutCheckpoint = ops.stream().filter(op -> !(op instanceof DiskOp.SaveCheckpoint)).toList();
        assertThat(reopen(crashed)).isEqualTo(model(FRESH, withoutCheckpoint));
        assertThat(names(crashed)).noneMatch(n -> n.startsWith("image-"));
        // Recorded once its image was saved: replay agrees with the model.
        PersistentState recovered = reopen(dir7);
        PersistentState expected = model(FRESH, ops);
        assertThat(recovered.entries()).isEqualTo(expected.entries());
        assertThat(recovered.checkpoint().meta()).isEqualTo(expected.checkpoint().meta());
        assertThat(recovered.checkpoint().meta().index()).isEqualTo(20);
        assertThat(ByteImage.of(recovered.checkpoint().image())).isEqualTo(ByteImage.copyOf(imageBytes));
        assertThat(recovered.entries().keySet()).allMatch(i -> i > 20);
    }

    @Test
    void aCaptureThatARestoreOvertookIsNeverRecorded() throws Exception {
        SplittableRandom r = new SplittableRandom(12);
        Path dir = tmp.resolve("g");
        SlowCapture image = new SlowCapture(new byte[4096]);
        List<DiskOp> ops = new ArrayList<>(entries(1, 1, 10, r));
        ops.add(checkpoint(11, 10, image));
        ops.addAll(entries(12, 11, 5, r));
        Recorder rec = new Recorder();
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer, new FileImageStore(dir), 1 << 20)) {
            appendAll(j, ops);
            rec.await(7, ops.size());
            assertThat(image.reading.await(30, TimeUnit.SECONDS)).isTrue();
            image.current = false;
            image.release.countDown();
        }
        List<DiskOp> withoutCheckpoint = ops.stream().filter(op -> !(op instanceof DiskOp.SaveCheckpoint)).toList();
        PersistentState recovered = reopen(dir);
        assertThat(recovered).isEqualTo(model(FRESH, withoutCheckpoint));
        assertThat(recovered.checkpoint().meta().index()).isZero();
        assertThat(names(dir)).noneMatch(n -> n.startsWith("image-"));
    }

    @Test
    void closingAbandonsASaveUnderWayAndLeavesNoFile() throws Exception {
        SplittableRandom r = new SplittableRandom(13);
        Path dir = tmp.resolve("g");
        // Many chunks: the save reads one, then finds the journal closing.
        SlowCapture image = new SlowCapture(new byte[8 * ChunkedImage.CHUNK_BYTES]);
        List<DiskOp> ops = new ArrayList<>(entries(1, 1, 5, r));
        ops.add(checkpoint(6, 5, image));
        Recorder rec = new Recorder();
        try (JournalWriter writer = new JournalWriter(64, rec)) {
            GroupJournal j = GroupJournal.open(7, dir, FRESH, writer, new FileImageStore(dir), 1 << 20);
            appendAll(j, ops);
            rec.await(7, ops.size());
            assertThat(image.reading.await(30, TimeUnit.SECONDS)).isTrue();
            Thread closer = new Thread(j::close);
            closer.start();
            Thread.sleep(100);
            image.release.countDown();
            closer.join(30_000);
            assertThat(closer.isAlive()).isFalse();
            assertThat(names(dir)).noneMatch(n -> n.startsWith("image-"));
            assertThat(rec.failures).isEmpty();
        }
        PersistentState recovered = reopen(dir);
        assertThat(recovered.checkpoint().meta().index()).isZero();
        assertThat(recovered.entries()).hasSize(5);
    }

    @Test
    void aReceivedCheckpointIsStillRecordedInOrder() throws Exception {
        SplittableRandom r = new SplittableRandom(14);
        Path dir = tmp.resolve("g");
        List<DiskOp> ops = new ArrayList<>(entries(1, 1, 5, r));
        byte[] received = new byte[1000];
        r.nextBytes(received);
        ops.add(checkpoint(6, 40, ByteImage.copyOf(received)));
        ops.addAll(entries(7, 41, 3, r));
        Recorder rec = new Recorder();
        Path crashed = tmp.resolve("crashed");
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer, new FileImageStore(dir), 1 << 20)) {
            appendAll(j, ops);
            rec.await(7, ops.size());
            JournalFixtures.copyDir(dir, crashed);
        }
        // Durable when acknowledged: a copy taken then holds it, with its image.
        PersistentState recovered = reopen(crashed);
        assertThat(recovered).isEqualTo(model(FRESH, ops));
        assertThat(ByteImage.of(recovered.checkpoint().image())).isEqualTo(ByteImage.copyOf(received));
    }
}
