package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.testing.Tmpfs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The namespace journal on real files: group commit, replay, torn tails, corruption, full disks. */
class NamespaceJournalTest {
    private static final NamespaceJournal.Settings SMALL_SEGMENTS = new NamespaceJournal.Settings(4096, 65_536);

    @TempDir
    Path tmp;

    /** One replayed record. */
    private record Rec(long seq, int type, String body) {
    }

    private static final class Collector implements JournalReplayer {
        final List<Rec> records = new ArrayList<>();

        @Override
        public void replay(long seq, int type, ByteBuf body) {
            records.add(new Rec(seq, type, body.toString(StandardCharsets.UTF_8)));
        }
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    private static NamespaceJournal open(Path dir, Collector into) throws IOException {
        return NamespaceJournal.open(dir, 0, 1, 0, into, NamespaceJournal.Settings.DEFAULT);
    }

    /** Waits until every record appended so far is durable; fails the test with the journal's reason. */
    private static void sync(NamespaceJournal j) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<String> failed = new AtomicReference<>();
        j.barrier(done::countDown, why -> {
            failed.set(why);
            done.countDown();
        });
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(failed.get()).isNull();
    }

    @Test
    void concurrentAppendsShareForcesAndReplayInTheOrderEachWriterAppended() throws Exception {
        Path dir = tmp.resolve("nn");
        int threads = 8;
        int each = 2000;
        Map<Long, Long> doneBeforeDurable = new ConcurrentHashMap<>();
        AtomicLong acknowledged = new AtomicLong();
        try (NamespaceJournal j = open(dir, new Collector())) {
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread w = new Thread(() -> {
                    for (int i = 0; i < each; i++) {
                        long seq = j.append(id, text(id + ":" + i));
                        j.whenDurable(seq, () -> {
                            if (j.durableSeq() < seq) {
                                doneBeforeDurable.put(seq, j.durableSeq());
                            }
                            acknowledged.incrementAndGet();
                        }, why -> { });
                    }
                });
                w.start();
                writers.add(w);
            }
            for (Thread w : writers) {
                w.join();
            }
            sync(j);
            assertThat(j.appended()).isEqualTo((long) threads * each);
            assertThat(j.durableSeq()).isEqualTo(threads * each);
            // The barrier's callback and the writers' run in no set order among themselves.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (acknowledged.get() < (long) threads * each && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(acknowledged.get()).isEqualTo((long) threads * each);
            assertThat(doneBeforeDurable).as("callbacks only after their record is durable").isEmpty();
        }

        Collector replay = new Collector();
        try (NamespaceJournal j = open(dir, replay)) {
            assertThat(j.lastSeq()).isEqualTo(threads * each);
            long next = j.append(9, text("after"));
            assertThat(next).isEqualTo(threads * each + 1);
        }
        assertThat(replay.records).hasSize(threads * each);
        for (int i = 0; i < replay.records.size(); i++) {
            assertThat(replay.records.get(i).seq()).isEqualTo(i + 1);
        }
        int[] nextOf = new int[threads];
        for (Rec r : replay.records) {
            String[] parts = r.body().split(":");
            int t = Integer.parseInt(parts[0]);
            assertThat(r.type()).isEqualTo(t);
            assertThat(Integer.parseInt(parts[1])).as("writer %d's records in its order", t).isEqualTo(nextOf[t]++);
        }
        Collector third = new Collector();
        try (NamespaceJournal j = open(dir, third)) {
            assertThat(j.lastSeq()).isEqualTo(threads * each + 1);
        }
        assertThat(third.records.get(third.records.size() - 1)).isEqualTo(new Rec(threads * each + 1, 9, "after"));
    }

    /**
     * Group commit, made deterministic: the writer is held in a callback (callbacks run on it) while
     * four threads append 4,000 records; released, it writes them all with one force.
     */
    @Test
    void recordsQueuedWhileTheWriterIsBusyShareOneForce() throws Exception {
        try (NamespaceJournal j = open(tmp.resolve("nn"), new Collector())) {
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread test = Thread.currentThread();
            AtomicBoolean ranHere = new AtomicBoolean();
            long first;
            do {
                // A record already durable when its callback is registered runs it here at once: the
                // writer is not held then, so append another and try again.
                ranHere.set(false);
                first = j.append(1, text("first"));
                j.whenDurable(first, () -> {
                    if (Thread.currentThread() == test) {
                        ranHere.set(true);
                        return;
                    }
                    held.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, why -> { });
            } while (ranHere.get());
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            long forcesBefore = j.forces();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread w = new Thread(() -> {
                    for (int i = 0; i < 1000; i++) {
                        j.append(2, text("r" + i));
                    }
                });
                w.start();
                writers.add(w);
            }
            for (Thread w : writers) {
                w.join();
            }
            assertThat(j.durableSeq()).as("nothing written while the writer is held").isEqualTo(first);
            release.countDown();
            sync(j);
            assertThat(j.durableSeq()).isEqualTo(first + 4000);
            assertThat(j.forces() - forcesBefore).as("4,000 records, one batch").isEqualTo(1);
        }
    }

    @Test
    void aTornTailIsCutAtTheLastWholeRecordAndNumberingGoesOn() throws Exception {
        Path dir = tmp.resolve("nn");
        try (NamespaceJournal j = open(dir, new Collector())) {
            for (int i = 1; i <= 10; i++) {
                j.append(1, text("r" + i));
            }
            sync(j);
        }
        Path segment = JournalFormat.segment(dir, 1);
        long whole = Files.size(segment);
        // A crash in the middle of writing the next batch: half a frame at the end.
        Files.write(segment, new byte[] {0, 0, 0, 40, 1, 2, 3, 4, 0, 0}, StandardOpenOption.APPEND);
        Collector replay = new Collector();
        try (NamespaceJournal j = open(dir, replay)) {
            assertThat(j.append(1, text("r11"))).isEqualTo(11);
            sync(j);
        }
        assertThat(Files.size(segment)).as("cut back to the last whole record").isEqualTo(whole);
        assertThat(replay.records).extracting(Rec::body).containsExactly("r1", "r2", "r3", "r4", "r5", "r6", "r7",
                "r8", "r9", "r10");

        // A torn last record (its CRC no longer matches): only that record is lost.
        Path last = JournalFormat.segment(dir, 11);
        byte[] bytes = Files.readAllBytes(last);
        bytes[bytes.length - 1] ^= 0x40;
        Files.write(last, bytes);
        Collector again = new Collector();
        try (NamespaceJournal j = open(dir, again)) {
            assertThat(j.lastSeq()).isEqualTo(10);
        }
        assertThat(again.records).hasSize(10);
        assertThat(Files.size(last)).isEqualTo(JournalFormat.SEGMENT_HEADER);
    }

    /**
     * Segments are written ahead with zeros (records land below the file's size, so a force writes
     * data only); a crash leaves the zeros, which a restart reads as the segment's end: every record
     * is replayed and the segment is trimmed to them. A segment closed cleanly holds its records only.
     */
    @Test
    void zerosWrittenAheadEndTheSegmentAfterACrashAndGoAtAClose() throws Exception {
        Path dir = tmp.resolve("nn");
        Path crashed = tmp.resolve("crashed");
        Files.createDirectories(crashed);
        long records;
        try (NamespaceJournal j = open(dir, new Collector())) {
            for (int i = 1; i <= 50; i++) {
                j.append(1, text("r" + i));
            }
            sync(j);
            Path segment = JournalFormat.segment(dir, 1);
            assertThat(Files.size(segment)).as("written ahead").isGreaterThanOrEqualTo(NamespaceJournal.PREALLOCATE);
            // What a kill -9 now leaves on disk: the records, then zeros.
            Files.copy(segment, JournalFormat.segment(crashed, 1));
            Files.copy(dir.resolve(JournalMeta.FILE), crashed.resolve(JournalMeta.FILE));
            byte[] bytes = Files.readAllBytes(segment);
            int end = bytes.length;
            while (end > 0 && bytes[end - 1] == 0) {
                end--;
            }
            records = end;
        }
        assertThat(Files.size(JournalFormat.segment(dir, 1))).as("trimmed when closed").isEqualTo(records);

        Collector replay = new Collector();
        try (NamespaceJournal j = open(crashed, replay)) {
            assertThat(j.lastSeq()).isEqualTo(50);
            assertThat(j.append(1, text("r51"))).isEqualTo(51);
            sync(j);
        }
        assertThat(replay.records).hasSize(50).last().isEqualTo(new Rec(50, 1, "r50"));
        assertThat(Files.size(JournalFormat.segment(crashed, 1))).as("trimmed at the restart").isEqualTo(records);
        Collector again = new Collector();
        try (NamespaceJournal j = open(crashed, again)) {
            assertThat(j.lastSeq()).isEqualTo(51);
        }
    }

    @Test
    void damageBeforeTheLastSegmentIsRefusedWithTheFileAndOffset() throws Exception {
        Path dir = tmp.resolve("nn");
        try (NamespaceJournal j = NamespaceJournal.open(dir, 0, 1, 0, new Collector(), SMALL_SEGMENTS)) {
            for (int i = 0; i < 200; i++) {
                j.append(2, text("a record long enough to fill small segments quickly " + i));
            }
            sync(j);
        }
        List<Long> segments = JournalFormat.segments(dir);
        assertThat(segments).hasSizeGreaterThan(2);
        Path first = JournalFormat.segment(dir, segments.get(0));
        byte[] bytes = Files.readAllBytes(first);
        bytes[JournalFormat.SEGMENT_HEADER + 20] ^= 1;
        Files.write(first, bytes);
        assertThatThrownBy(() -> open(dir, new Collector())).isInstanceOf(JournalCorruptException.class)
                .hasMessageContaining(first.toString()).hasMessageContaining("byte " + JournalFormat.SEGMENT_HEADER)
                .hasMessageContaining("checksum");

        // A missing segment in the middle is a gap, not a tail.
        bytes[JournalFormat.SEGMENT_HEADER + 20] ^= 1;
        Files.write(first, bytes);
        Files.delete(JournalFormat.segment(dir, segments.get(1)));
        assertThatThrownBy(() -> open(dir, new Collector())).isInstanceOf(JournalCorruptException.class)
                .hasMessageContaining("records are missing");
    }

    @Test
    void rolledSegmentsCoveredByACheckpointArePurgedAndReplayStartsAboveIt() throws Exception {
        Path dir = tmp.resolve("nn");
        long covered;
        try (NamespaceJournal j = open(dir, new Collector())) {
            for (int i = 1; i <= 5; i++) {
                j.append(3, text("old" + i));
            }
            sync(j);
            assertThat(j.roll().get(10, TimeUnit.SECONDS)).isEqualTo(6);
            covered = j.lastSeq();
            j.append(3, text("new6"));
            sync(j);
            assertThat(j.purge(covered).get(10, TimeUnit.SECONDS)).isEqualTo(1);
        }
        assertThat(JournalFormat.segments(dir)).containsExactly(6L);
        Collector replay = new Collector();
        try (NamespaceJournal j = NamespaceJournal.open(dir, 0, 1, covered, replay,
                NamespaceJournal.Settings.DEFAULT)) {
            assertThat(j.append(3, text("new7"))).isEqualTo(7);
        }
        assertThat(replay.records).containsExactly(new Rec(6, 3, "new6"));
        // Without the checkpoint the purged records are missing: refused, not replayed from the middle.
        assertThatThrownBy(() -> open(dir, new Collector())).isInstanceOf(JournalCorruptException.class)
                .hasMessageContaining("records 1..5 are missing");
    }

    @Test
    void anotherNamenodesDirectoryAnotherNamespaceAndAnotherProcessAreRefused() throws Exception {
        Path dir = tmp.resolve("nn");
        try (NamespaceJournal j = open(dir, new Collector())) {
            j.append(1, text("x"));
            sync(j);
            assertThatThrownBy(() -> open(dir, new Collector())).isInstanceOf(IOException.class)
                    .hasMessageContaining("is in use by another namenode");
        }
        assertThatThrownBy(() -> NamespaceJournal.open(dir, 1, 2, 0, new Collector(),
                NamespaceJournal.Settings.DEFAULT)).isInstanceOf(IOException.class)
                .hasMessageContaining("belongs to namenode partition 0 of 1, but this namenode is partition 1 of 2");

        // A segment copied in from another namespace.
        Path other = tmp.resolve("other");
        try (NamespaceJournal j = open(other, new Collector())) {
            j.append(1, text("y"));
            sync(j);
        }
        Files.copy(JournalFormat.segment(other, 1), JournalFormat.segment(dir, 1), StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> open(dir, new Collector())).isInstanceOf(JournalCorruptException.class)
                .hasMessageContaining("belongs to namespace");

        // A meta file of a future format.
        Path meta = dir.resolve(JournalMeta.FILE);
        byte[] bytes = Files.readAllBytes(meta);
        bytes[4] = 7;
        Files.write(meta, bytes);
        assertThatThrownBy(() -> open(dir, new Collector())).isInstanceOf(IOException.class)
                .hasMessageContaining("journal format version 7; this namenode reads version 2");
    }

    @Test
    void aFullDiskFailsTheJournalWithTheReasonAndKeepsEveryAcknowledgedRecord() throws Exception {
        try (Tmpfs mounted = Tmpfs.mount(tmp.resolve("mnt"), "1m")) {
            Path dir = mounted.path().resolve("nn");
            List<Long> acknowledged = Collections.synchronizedList(new ArrayList<>());
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            String payload = "x".repeat(2000);
            try (NamespaceJournal j = open(dir, new Collector())) {
                long seq = 0;
                for (int i = 0; i < 2000 && j.failure() == null; i++) {
                    long s;
                    try {
                        s = j.append(4, text(i + ":" + payload));
                    } catch (JournalFailedException e) {
                        break;
                    }
                    seq = s;
                    j.whenDurable(s, () -> acknowledged.add(s), failures::add);
                    if (i % 20 == 19) {
                        CountDownLatch batch = new CountDownLatch(1);
                        j.whenDurable(s, batch::countDown, why -> batch.countDown());
                        assertThat(batch.await(30, TimeUnit.SECONDS)).isTrue();
                    }
                }
                CountDownLatch decided = new CountDownLatch(1);
                j.whenDurable(seq, decided::countDown, why -> decided.countDown());
                assertThat(decided.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(j.failure()).as("1 MiB cannot hold 4 MB of records").isNotNull()
                        .startsWith("namespace journal " + dir + " is full: No space left on device")
                        .contains("refuses mutations until it is restarted");
                assertThat(failures).isNotEmpty().allMatch(f -> f.equals(j.failure()));
                assertThatThrownBy(() -> j.append(4, text("more"))).isInstanceOf(JournalFailedException.class)
                        .hasMessage(j.failure());
            }
            assertThat(acknowledged).isNotEmpty();
            // Restarted (with room again): every acknowledged record is there.
            Path copy = tmp.resolve("copy");
            Files.createDirectories(copy);
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    if (!f.getFileName().toString().equals("in_use.lock")) {
                        Files.copy(f, copy.resolve(f.getFileName()));
                    }
                }
            }
            Collector replay = new Collector();
            try (NamespaceJournal j = open(copy, replay)) {
                assertThat(j.lastSeq()).isGreaterThanOrEqualTo(Collections.max(acknowledged));
            }
            assertThat(replay.records).extracting(Rec::seq).containsAll(acknowledged);
        }
    }
}
