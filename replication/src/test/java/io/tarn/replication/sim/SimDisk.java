package io.tarn.replication.sim;

import io.tarn.replication.Checkpoint;
import io.tarn.replication.DiskOp;
import io.tarn.replication.LogEntry;
import io.tarn.replication.PersistentState;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A simulated journal: operations are durable once a group-commit flush completes; a crash loses
 * every queued operation and, for the flush under way, either all of it or a random prefix
 * (durable but never reported). A wipe loses everything.
 */
final class SimDisk {

    private long currentTerm;
    private int votedFor = PersistentState.NO_VOTE;
    private boolean voter = true;
    private long syncedTerm;
    private long syncEnd;
    private final TreeMap<Long, LogEntry> entries = new TreeMap<>();
    private Checkpoint checkpoint = Checkpoint.INITIAL;

    final List<DiskOp> queued = new ArrayList<>();
    List<DiskOp> flushing;

    /** The empty disk of a replica created to join a running group: it starts as a non-voter. */
    static SimDisk joining() {
        SimDisk disk = new SimDisk();
        disk.voter = false;
        return disk;
    }

    PersistentState snapshot() {
        return new PersistentState(currentTerm, votedFor, voter, syncedTerm, syncEnd, entries, checkpoint);
    }

    Checkpoint checkpoint() {
        return checkpoint;
    }

    void apply(DiskOp op) {
        if (op instanceof DiskOp.PersistHardState h) {
            currentTerm = h.currentTerm();
            votedFor = h.votedFor();
            voter = h.voter();
        } else if (op instanceof DiskOp.PersistEntries e) {
            e.entries().forEach(entry -> entries.put(entry.index(), entry));
        } else if (op instanceof DiskOp.PersistSync s) {
            entries.tailMap(s.baseIndex(), false).clear();
            s.entries().forEach(entry -> entries.put(entry.index(), entry));
            syncedTerm = s.syncedTerm();
            syncEnd = s.syncEnd();
        } else if (op instanceof DiskOp.SaveCheckpoint c) {
            if (c.checkpoint().meta().index() > checkpoint.meta().index()) {
                checkpoint = c.checkpoint();
            }
            entries.headMap(c.compactTo(), true).clear();
        }
    }

    /** Power loss: keeps a random prefix of the flush under way, loses the rest. */
    void crash(SplittableRandom random) {
        if (flushing != null && random.nextBoolean()) {
            int keep = random.nextInt(flushing.size() + 1);
            for (int i = 0; i < keep; i++) {
                apply(flushing.get(i));
            }
        }
        flushing = null;
        queued.clear();
    }

    /** Disk replaced: nothing survives; the replica must rejoin as a non-voter. */
    void wipe() {
        currentTerm = 0;
        votedFor = PersistentState.NO_VOTE;
        voter = false;
        syncedTerm = 0;
        syncEnd = 0;
        entries.clear();
        checkpoint = Checkpoint.INITIAL;
        flushing = null;
        queued.clear();
    }
}
