package io.tarn.replication.host;

import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Child process of {@link JournalCrashTest}: appends {@link #op}s to group 7's journal in the directory
 * given as the only argument, forever, and prints {@code durable <opId>} for each op the journal
 * reports durable, until the parent kills it with SIGKILL.
 */
public final class JournalCrashChild {
    static final long GROUP = 7;
    static final long SEGMENT_BYTES = 256 << 10;

    private JournalCrashChild() {
    }

    /** Op {@code id} of the child's deterministic stream: 1 KiB entries at index id, a checkpoint every 100th. */
    static DiskOp op(long id) {
        SplittableRandom r = new SplittableRandom(id);
        if (id % 100 == 0) {
            return JournalFixtures.checkpoint(id, id - 50, id - 80, r);
        }
        return new DiskOp.PersistEntries(id, List.of(JournalFixtures.write(1, id, r, 1024)));
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        JournalListener printer = new JournalListener() {
            @Override
            public void durable(long groupId, long opId) {
                out.println("durable " + opId);
                out.flush();
            }

            @Override
            public void failed(long groupId, String reason) {
                out.println("failed " + reason);
                out.flush();
            }
        };
        Path dir = Path.of(args[0]);
        JournalWriter writer = new JournalWriter(1024, printer);
        GroupJournal j = GroupJournal.open(GROUP, dir, PersistentState.initialVoter(), writer,
                new FileImageStore(dir), SEGMENT_BYTES);
        for (long id = 1; ; id++) {
            DiskOp op = op(id);
            Admission a;
            while ((a = j.append(op)) == Admission.BUSY) {
                Thread.onSpinWait();
            }
            if (a == Admission.FAILED) {
                return;
            }
        }
    }
}
