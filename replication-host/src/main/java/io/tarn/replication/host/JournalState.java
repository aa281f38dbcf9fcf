package io.tarn.replication.host;

import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.DiskOp;
import io.tarn.replication.LogEntry;
import io.tarn.replication.PersistentState;
import io.tarn.replication.StateImage;

import java.util.List;
import java.util.TreeMap;

/**
 * A replica's durable state as the journal sees it, updated op by op in issue order. The journals
 * keep one as a mirror (the head of each new segment is written from it) and recovery replays
 * records into one. Confined to one thread at a time; entries are shared, immutable
 * {@link LogEntry}s, so the mirror costs references, not copies.
 *
 * <p>Rules (those of the core's {@code DiskOp} contract): a sync drops every entry above its base
 * and records the synced term and end; a checkpoint drops entries at or below {@code compactTo}
 * and is recorded only when its index is above the current checkpoint's.
 */
final class JournalState {
    long currentTerm;
    int votedFor;
    boolean voter;
    long syncedTerm;
    long syncEnd;
    final TreeMap<Long, LogEntry> entries = new TreeMap<>();
    CheckpointMeta meta;
    /** The checkpoint's image; during recovery {@code null} until loaded from the image store. */
    StateImage image;
    /** The image store's id of {@link #image}, 0 when there is none. */
    long imageId;

    JournalState(PersistentState s) {
        currentTerm = s.currentTerm();
        votedFor = s.votedFor();
        voter = s.voter();
        syncedTerm = s.syncedTerm();
        syncEnd = s.syncEnd();
        entries.putAll(s.entries());
        meta = s.checkpoint().meta();
        image = s.checkpoint().image();
    }

    void hardState(long term, int vote, boolean isVoter) {
        currentTerm = term;
        votedFor = vote;
        voter = isVoter;
    }

    void put(List<LogEntry> list) {
        for (int i = 0; i < list.size(); i++) {
            LogEntry e = list.get(i);
            entries.put(e.index(), e);
        }
    }

    void sync(long term, long baseIndex, long end, List<LogEntry> list) {
        entries.tailMap(baseIndex, false).clear();
        put(list);
        syncedTerm = term;
        syncEnd = end;
    }

    /** Whether a checkpoint at {@code index} replaces the current one. */
    boolean isNewer(CheckpointMeta candidate) {
        return candidate.index() > meta.index();
    }

    void checkpoint(CheckpointMeta m, StateImage img, long id, long compactTo) {
        if (isNewer(m)) {
            meta = m;
            image = img;
            imageId = id;
        }
        entries.headMap(compactTo, true).clear();
    }

    /** Applies an op whose checkpoint image, if any, has id {@code newImageId} in the image store. */
    void apply(DiskOp op, long newImageId) {
        if (op instanceof DiskOp.PersistHardState h) {
            hardState(h.currentTerm(), h.votedFor(), h.voter());
        } else if (op instanceof DiskOp.PersistEntries e) {
            put(e.entries());
        } else if (op instanceof DiskOp.PersistSync s) {
            sync(s.syncedTerm(), s.baseIndex(), s.syncEnd(), s.entries());
        } else if (op instanceof DiskOp.SaveCheckpoint c) {
            checkpoint(c.checkpoint().meta(), c.checkpoint().image(), newImageId, c.compactTo());
        } else {
            throw new IllegalArgumentException("unknown disk op " + op);
        }
    }

    /** Highest index in the log, 0 when it is empty. */
    long logMax() {
        return entries.isEmpty() ? 0 : entries.lastKey();
    }

    PersistentState snapshot() {
        return new PersistentState(currentTerm, votedFor, voter, syncedTerm, syncEnd, entries,
                new Checkpoint(meta, image));
    }
}
