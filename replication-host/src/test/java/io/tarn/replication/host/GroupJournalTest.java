package io.tarn.replication.host;

import io.tarn.replication.host.JournalFixtures.Recorder;
import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static io.tarn.replication.host.JournalFixtures.appendAll;
import static io.tarn.replication.host.JournalFixtures.model;
import static io.tarn.replication.host.JournalFixtures.randomOps;
import static org.assertj.core.api.Assertions.assertThat;

class GroupJournalTest {

    private static final PersistentState FRESH = PersistentState.initialVoter();

    @TempDir
    Path tmp;

    /** Writes ops through a fresh writer, waits until all are durable, closes; returns the journal's dir. */
    static void write(Path dir, List<DiskOp> ops, long segmentBytes) throws Exception {
        Recorder rec = new Recorder();
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer, new FileImageStore(dir), segmentBytes)) {
            appendAll(j, ops);
            rec.await(7, ops.size());
            assertThat(rec.durable(7)).containsExactlyElementsOf(ops.stream().map(DiskOp::id).toList());
        }
    }

    static PersistentState reopen(Path dir) throws IOException {
        try (JournalWriter writer = new JournalWriter(64, new Recorder());
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer, new FileImageStore(dir), 1 << 20)) {
            assertThat(j.failure()).isNull();
            return JournalFixtures.inBytes(j.recovered());
        }
    }

    @Property(tries = 40)
    void randomOpSequencesSurviveAReopen(@ForAll long seed, @ForAll @IntRange(min = 1, max = 60) int n,
                                         @ForAll @IntRange(min = 256, max = 8192) int segmentBytes) throws Exception {
        Path dir = Files.createTempDirectory("journal-prop");
        List<DiskOp> ops = randomOps(seed, n);
        Files.createDirectories(dir);
        write(dir, ops, segmentBytes);
        PersistentState expected = model(FRESH, ops);
        assertThat(reopen(dir)).isEqualTo(expected);
        // A second reopen replays the head written by the first one.
        assertThat(reopen(dir)).isEqualTo(expected);
        long images = Files.list(dir).filter(f -> f.getFileName().toString().startsWith("image-")).count();
        assertThat(images).isEqualTo(expected.checkpoint().image() == null ? 0 : 1);
    }

    private static List<DiskOp> entryOps(long firstId, int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<DiskOp> ops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long id = firstId + i;
            ops.add(new DiskOp.PersistEntries(id, List.of(JournalFixtures.write(1, id, r, 40))));
        }
        return ops;
    }

    /** Writes ops into journal directory {@code tmp/j} (one segment); returns that segment. */
    private Path writeOneSegment(List<DiskOp> ops) throws Exception {
        Path dir = tmp.resolve("j");
        Files.createDirectories(dir);
        write(dir, ops, 1 << 20);
        return JournalFixtures.segmentFiles(dir).get(0);
    }

    @Test
    void aTornTailIsCutAtEveryByteAndNeverApplied() throws Exception {
        List<DiskOp> ops = entryOps(1, 6, 1);
        Path segment = writeOneSegment(ops);
        Path dir = segment.getParent();
        List<Integer> offsets = JournalFixtures.recordOffsets(segment);
        assertThat(offsets).hasSize(7); // head + 6 ops
        int lastStart = offsets.get(6);
        long size = Files.size(segment);
        PersistentState withoutLast = model(FRESH, ops.subList(0, 5));
        for (int cut = lastStart; cut < size; cut++) {
            Path copy = tmp.resolve("cut-" + cut);
            JournalFixtures.copyDir(dir, copy);
            Path torn = copy.resolve(segment.getFileName());
            JournalFixtures.truncate(torn, cut);
            assertThat(reopen(copy)).as("cut at %d", cut).isEqualTo(withoutLast);
            assertThat(Files.size(torn)).isEqualTo(lastStart);
        }
        // Garbage instead of a short file: the checksum catches it.
        for (int from = lastStart + 1; from < size; from += 7) {
            Path copy = tmp.resolve("garbage-" + from);
            JournalFixtures.copyDir(dir, copy);
            Path torn = copy.resolve(segment.getFileName());
            byte[] bytes = Files.readAllBytes(torn);
            for (int i = from; i < bytes.length; i++) {
                bytes[i] = (byte) 0xA5;
            }
            Files.write(torn, bytes);
            assertThat(reopen(copy)).as("garbage from %d", from).isEqualTo(withoutLast);
        }
    }

    @Test
    void aCorruptMiddleRecordStopsReplayThere() throws Exception {
        List<DiskOp> ops = entryOps(1, 8, 2);
        Path segment = writeOneSegment(ops);
        Path dir = segment.getParent();
        int third = JournalFixtures.recordOffsets(segment).get(3); // head, op 1, op 2, op 3
        byte[] bytes = Files.readAllBytes(segment);
        bytes[third + 20] ^= 0x10;
        Files.write(segment, bytes);
        PersistentState recovered = reopen(dir);
        assertThat(recovered).isEqualTo(model(FRESH, ops.subList(0, 2)));
        assertThat(recovered.voter()).isTrue(); // in the last segment: indistinguishable from a torn write
        assertThat(Files.size(segment)).isEqualTo(third);
    }

    @Test
    void corruptionBeforeTheLastSegmentLosesAcknowledgedOpsAndDemotesTheReplica() throws Exception {
        Path dir = tmp.resolve("j");
        Files.createDirectories(dir);
        List<DiskOp> first = new ArrayList<>(List.of(new DiskOp.PersistHardState(1, 3, 1, true)));
        first.addAll(entryOps(2, 4, 3));
        write(dir, first, 1 << 20);
        write(dir, entryOps(6, 4, 4), 1 << 20); // reopening begins segment 2
        Path segment1 = JournalFixtures.segmentFiles(dir).get(0);
        int op4 = JournalFixtures.recordOffsets(segment1).get(4);
        byte[] bytes = Files.readAllBytes(segment1);
        bytes[bytes.length - 1] ^= 0x01; // damages op 5, the last record of segment 1
        Files.write(segment1, bytes);
        PersistentState recovered = reopen(dir);
        PersistentState prefix = model(FRESH, first.subList(0, 4));
        assertThat(recovered.entries()).isEqualTo(prefix.entries());
        assertThat(recovered.currentTerm()).isEqualTo(3);
        assertThat(recovered.voter()).as("lost acknowledged ops: must rejoin as a non-voter").isFalse();
        assertThat(JournalFixtures.recordOffsets(segment1)).hasSize(5).last().isEqualTo(op4);
    }

    @Test
    void groupCommitForcesFarFewerTimesThanOps() throws Exception {
        Recorder rec = new Recorder();
        int groups = 8;
        int perGroup = 400;
        List<GroupJournal> journals = new ArrayList<>();
        try (JournalWriter writer = new JournalWriter(1024, rec)) {
            for (int g = 0; g < groups; g++) {
                Path dir = tmp.resolve("g" + g);
                Files.createDirectories(dir);
                journals.add(GroupJournal.open(g, dir, FRESH, writer, new FileImageStore(dir), 1 << 30));
            }
            long forcesBefore = writer.forces();
            List<Thread> threads = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                GroupJournal j = journals.get(g);
                List<DiskOp> ops = entryOps(1, perGroup, g);
                threads.add(new Thread(() -> appendAll(j, ops)));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            for (int g = 0; g < groups; g++) {
                rec.await(g, perGroup);
                assertThat(rec.durable(g)).containsExactlyElementsOf(
                        LongStream.rangeClosed(1, perGroup).boxed().toList());
            }
            long forces = writer.forces() - forcesBefore;
            assertThat(forces).as("forces for %d ops", groups * perGroup).isLessThan(groups * perGroup / 4);
            for (GroupJournal j : journals) {
                j.close();
            }
        }
    }

    @Test
    void compactionDeletesOldSegmentsAndRecoveryStillAgrees() throws Exception {
        Path dir = tmp.resolve("j");
        Files.createDirectories(dir);
        SplittableRandom r = new SplittableRandom(5);
        List<DiskOp> ops = new ArrayList<>();
        long id = 1;
        for (int round = 1; round <= 10; round++) {
            for (int i = 0; i < 20; i++) {
                long index = (round - 1) * 20L + i + 1;
                ops.add(new DiskOp.PersistEntries(id++, List.of(JournalFixtures.write(1, index, r, 200))));
            }
            ops.add(JournalFixtures.checkpoint(id++, round * 20L, round * 20L - 5, r));
        }
        Recorder rec = new Recorder();
        int maxSegments = 0;
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer, new FileImageStore(dir), 2048)) {
            for (DiskOp op : ops) {
                appendAll(j, List.of(op));
                rec.await(7, (int) op.id());
                maxSegments = Math.max(maxSegments, j.segmentCount());
            }
            assertThat(j.segmentCount()).isLessThanOrEqualTo(6);
        }
        PersistentState expected = model(FRESH, ops);
        assertThat(JournalFixtures.segmentFiles(dir)).hasSizeLessThanOrEqualTo(6);
        assertThat(Files.exists(dir.resolve("segment-00000000000000000001.log"))).isFalse();
        assertThat(reopen(dir)).isEqualTo(expected);
        assertThat(maxSegments).isGreaterThan(2);
    }

    @Test
    void memoryJournalAcknowledgesAtOnce() {
        Recorder rec = new Recorder();
        List<DiskOp> ops = randomOps(9, 30);
        try (MemoryJournal j = new MemoryJournal(3, FRESH, rec)) {
            for (DiskOp op : ops) {
                assertThat(j.append(op)).isEqualTo(Admission.QUEUED);
                assertThat(rec.durable(3)).last().isEqualTo(op.id());
            }
            assertThat(j.state()).isEqualTo(model(FRESH, ops));
            assertThat(j.recovered()).isEqualTo(FRESH);
            j.close();
            assertThat(j.append(ops.get(0))).isEqualTo(Admission.FAILED);
        }
    }

    @Test
    void aFreshJournalStartsFromTheGivenState() throws Exception {
        Path dir = tmp.resolve("wiped");
        try (JournalWriter writer = new JournalWriter(8, new Recorder())) {
            GroupJournal j = GroupJournal.open(1, dir, PersistentState.wiped(), writer);
            assertThat(j.recovered()).isEqualTo(PersistentState.wiped());
            j.close();
            assertThat(j.append(new DiskOp.PersistHardState(1, 1, 0, false))).isEqualTo(Admission.FAILED);
            assertThat(j.failure()).isEqualTo("journal " + dir + " is closed");
        }
        assertThat(reopen(dir)).isEqualTo(PersistentState.wiped());
    }
}
