package io.tarn.replication.host;

import io.tarn.common.testing.Tmpfs;
import io.tarn.replication.host.JournalFixtures.Recorder;
import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** A full and a read-only file system, made for real with a small tmpfs mount. */
class JournalFailureTest {
    private static final PersistentState FRESH = PersistentState.initialVoter();

    @TempDir
    Path tmp;
    private Tmpfs mounted;

    private Path tmpfs(String size) throws Exception {
        mounted = Tmpfs.mount(tmp.resolve("mnt"), size);
        return mounted.path();
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted != null) {
            mounted.close();
        }
    }

    private static DiskOp entry(long id, SplittableRandom r) {
        return new DiskOp.PersistEntries(id, List.of(JournalFixtures.write(1, id, r, 4096)));
    }

    @Test
    void aFullFileSystemFailsTheJournalWithTheReasonAndKeepsWhatWasAcknowledged() throws Exception {
        Path dir = tmpfs("1m").resolve("group-7");
        Recorder rec = new Recorder();
        SplittableRandom r = new SplittableRandom(1);
        List<Long> acked;
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer)) {
            long id = 1;
            while (j.append(entry(id, r)) != Admission.FAILED && id < 1000) {
                rec.await(7, (int) id);
                id++;
            }
            String expected = "journal " + dir + " is full: No space left on device";
            assertThat(rec.failures.get(7L)).isEqualTo(expected);
            assertThat(j.failure()).isEqualTo(expected);
            assertThat(j.append(entry(id + 1, r))).isEqualTo(Admission.FAILED);
            acked = new ArrayList<>(rec.durable(7));
            assertThat(acked).hasSizeBetween(100, 998); // about 1 MiB of entries of 1..4096 bytes
        }
        try (JournalWriter writer = new JournalWriter(64, new Recorder());
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer)) {
            assertThat(j.recovered().entries().keySet()).containsAll(acked);
        }
    }

    @Test
    void aReadOnlyFileSystemFailsTheJournalWithTheReason() throws Exception {
        Path mnt = tmpfs("4m");
        Path dir = mnt.resolve("group-7");
        SplittableRandom r = new SplittableRandom(2);
        List<DiskOp> ops = List.of(new DiskOp.PersistHardState(1, 2, 0, true), entry(2, r), entry(3, r));
        Recorder first = new Recorder();
        try (JournalWriter writer = new JournalWriter(64, first);
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer)) {
            JournalFixtures.appendAll(j, ops);
            first.await(7, ops.size());
        }
        assertThat(mounted.remountReadOnly()).isTrue();
        Recorder rec = new Recorder();
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal j = GroupJournal.open(7, dir, FRESH, writer)) {
            assertThat(j.failure()).startsWith("journal " + dir + " is read-only: Read-only file system (")
                    .isEqualTo(rec.failures.get(7L));
            assertThat(JournalFixtures.inBytes(j.recovered())).isEqualTo(JournalFixtures.model(FRESH, ops));
            assertThat(j.append(entry(4, r))).isEqualTo(Admission.FAILED);
        }
    }
}
