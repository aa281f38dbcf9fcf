package io.tarn.replication.host;

import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.DiskOp;
import io.tarn.replication.LogEntry;
import io.tarn.replication.PersistentState;
import io.tarn.replication.SessionSnapshot;
import io.tarn.replication.WriteCommand;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** Test support for journals: random op sequences, a reference model, a recording listener, file helpers. */
public final class JournalFixtures {
    private JournalFixtures() {
    }

    /**
     * The expected durable state after a sequence of ops, written independently of the journal from the
     * core's DiskOp contract.
     */
    /**
     * {@code state} with its checkpoint image read into a {@link ByteImage}, so that a recovered
     * state (whose image is a handle on a file) compares by content with a model's.
     */
    public static PersistentState inBytes(PersistentState state) {
        Checkpoint c = state.checkpoint();
        if (c.image() == null) {
            return state;
        }
        return new PersistentState(state.currentTerm(), state.votedFor(), state.voter(), state.syncedTerm(),
                state.syncEnd(), state.entries(), new Checkpoint(c.meta(), ByteImage.of(c.image())));
    }

    public static PersistentState model(PersistentState start, List<DiskOp> ops) {
        long term = start.currentTerm();
        int vote = start.votedFor();
        boolean voter = start.voter();
        long syncedTerm = start.syncedTerm();
        long syncEnd = start.syncEnd();
        TreeMap<Long, LogEntry> log = new TreeMap<>(start.entries());
        Checkpoint cp = start.checkpoint();
        for (DiskOp op : ops) {
            if (op instanceof DiskOp.PersistHardState h) {
                term = h.currentTerm();
                vote = h.votedFor();
                voter = h.voter();
            } else if (op instanceof DiskOp.PersistEntries e) {
                for (LogEntry entry : e.entries()) {
                    log.put(entry.index(), entry);
                }
            } else if (op instanceof DiskOp.PersistSync s) {
                log.keySet().removeIf(i -> i > s.baseIndex());
                for (LogEntry entry : s.entries()) {
                    log.put(entry.index(), entry);
                }
                syncedTerm = s.syncedTerm();
                syncEnd = s.syncEnd();
            } else if (op instanceof DiskOp.SaveCheckpoint c) {
                if (c.checkpoint().meta().index() > cp.meta().index()) {
                    cp = c.checkpoint();
                }
                log.keySet().removeIf(i -> i <= c.compactTo());
            }
        }
        return new PersistentState(term, vote, voter, syncedTerm, syncEnd, log, cp);
    }

    public static LogEntry write(long term, long index, SplittableRandom r, int maxBytes) {
        byte[] data = new byte[1 + r.nextInt(maxBytes)];
        r.nextBytes(data);
        BlockRange range = new BlockRange(r.nextInt(1 << 20), data.length);
        long seq = 1 + r.nextInt(1000);
        WriteCommand c = new WriteCommand(r.nextInt(4), seq, 1 + r.nextLong(seq), range, BytesPayload.copyOf(data));
        List<BlockRange> lookBehind = r.nextBoolean() ? List.of() : List.of(new BlockRange(r.nextInt(100), 1));
        return new LogEntry(term, index, range, lookBehind, c);
    }

    /** A random but valid sequence of {@code n} ops with ids 1..n. */
    public static List<DiskOp> randomOps(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        List<DiskOp> ops = new ArrayList<>();
        long term = 1;
        long checkpointIndex = 0;
        for (long id = 1; id <= n; id++) {
            int kind = r.nextInt(10);
            if (kind < 2 || id == 1) {
                term += r.nextInt(2);
                ops.add(new DiskOp.PersistHardState(id, term, r.nextInt(4) - 1, r.nextInt(5) > 0));
            } else if (kind < 6) {
                List<LogEntry> list = new ArrayList<>();
                for (int k = 1 + r.nextInt(3); k > 0; k--) {
                    long index = 1 + r.nextInt(40);
                    boolean noop = r.nextInt(5) == 0;
                    list.add(noop ? LogEntry.noop(term, index) : write(1 + r.nextLong(term), index, r, 64));
                }
                ops.add(new DiskOp.PersistEntries(id, list));
            } else if (kind < 8) {
                long base = r.nextInt(30);
                List<LogEntry> list = new ArrayList<>();
                int count = r.nextInt(5);
                for (int k = 1; k <= count; k++) {
                    list.add(write(term, base + k, r, 64));
                }
                ops.add(new DiskOp.PersistSync(id, 1 + r.nextLong(term), base, base + count, list));
            } else {
                checkpointIndex += r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(8);
                ops.add(checkpoint(id, checkpointIndex, r.nextLong(checkpointIndex + 1), r));
            }
        }
        return ops;
    }

    public static DiskOp.SaveCheckpoint checkpoint(long id, long index, long compactTo, SplittableRandom r) {
        byte[] image = new byte[r.nextInt(200)];
        r.nextBytes(image);
        Map<Long, SessionSnapshot> sessions = r.nextBoolean() ? Map.of()
                : Map.of(r.nextLong(), new SessionSnapshot(1 + r.nextInt(9), List.of(20L, 22L)));
        CheckpointMeta meta = new CheckpointMeta(index, r.nextBoolean() ? List.of() : List.of(index + 2), sessions);
        return new DiskOp.SaveCheckpoint(id, new Checkpoint(meta, ByteImage.copyOf(image)), compactTo);
    }

    /** Records what journals report. */
    public static final class Recorder implements JournalListener {
        final Map<Long, List<Long>> durable = new ConcurrentHashMap<>();
        public final Map<Long, String> failures = new ConcurrentHashMap<>();

        @Override
        public void durable(long groupId, long opId) {
            durable.computeIfAbsent(groupId, g -> new CopyOnWriteArrayList<>()).add(opId);
            synchronized (this) {
                notifyAll();
            }
        }

        @Override
        public void failed(long groupId, String reason) {
            if (failures.putIfAbsent(groupId, reason) != null) {
                throw new AssertionError("failure reported twice for group " + groupId);
            }
            synchronized (this) {
                notifyAll();
            }
        }

        public List<Long> durable(long groupId) {
            return durable.getOrDefault(groupId, List.of());
        }

        /** Waits until the group has {@code count} ops durable or has failed. */
        public synchronized void await(long groupId, int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (durable(groupId).size() < count && !failures.containsKey(groupId)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("group " + groupId + ": " + durable(groupId).size() + " of " + count
                            + " ops durable after 60 s");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
    }

    /** Appends every op, retrying while the queue is full. */
    public static void appendAll(ReplicaJournal j, List<DiskOp> ops) {
        for (DiskOp op : ops) {
            Admission a;
            while ((a = j.append(op)) == Admission.BUSY) {
                Thread.onSpinWait();
            }
            if (a == Admission.FAILED) {
                return;
            }
        }
    }

    /** Start offsets of the records in a segment file (stops at the first one that does not fit). */
    public static List<Integer> recordOffsets(Path segment) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(segment));
        List<Integer> offsets = new ArrayList<>();
        int pos = 0;
        while (pos + JournalRecords.FRAME < b.limit()) {
            int len = b.getInt(pos);
            if (len < 1 || pos + JournalRecords.FRAME + len > b.limit()) {
                break;
            }
            offsets.add(pos);
            pos += JournalRecords.FRAME + len;
        }
        return offsets;
    }

    public static void truncate(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }

    public static void copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }

    public static List<Path> segmentFiles(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        for (long seq : Segments.list(dir)) {
            out.add(Segments.file(dir, seq));
        }
        return out;
    }
}
