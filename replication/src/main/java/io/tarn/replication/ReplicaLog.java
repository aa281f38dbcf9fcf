package io.tarn.replication;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A replica's view of its log: the entries (with holes), which of them are durable, what is known
 * committed and what is applied, and the latest checkpoint.
 *
 * <p>Commit knowledge is a property of an index (the value chosen there), learned only from the
 * leader the log is synced to; applied is tracked as a prefix plus a set above it, because entries
 * apply out of order.
 */
final class ReplicaLog {

    private final TreeMap<Long, LogEntry> entries = new TreeMap<>();
    private final Map<Long, Long> pendingWrite = new HashMap<>();
    private final TreeSet<Long> committedAbove = new TreeSet<>();
    private final TreeSet<Long> appliedAbove = new TreeSet<>();
    private final TreeMap<Long, List<Integer>> configurations = new TreeMap<>();
    private final List<Integer> foundingMembers;
    private Checkpoint checkpoint;
    private long syncedTerm;
    private long syncEnd;
    private long contiguous;
    private long commitPrefix;
    private long appliedPrefix;

    ReplicaLog(PersistentState state) {
        this(state, List.of());
    }

    ReplicaLog(PersistentState state, List<Integer> foundingMembers) {
        this.foundingMembers = foundingMembers.stream().sorted().toList();
        this.checkpoint = state.checkpoint();
        this.syncedTerm = state.syncedTerm();
        this.syncEnd = state.syncEnd();
        this.entries.putAll(state.entries());
        for (LogEntry e : state.entries().values()) {
            indexConfiguration(e);
        }
        CheckpointMeta meta = checkpoint.meta();
        this.commitPrefix = meta.index();
        this.appliedPrefix = meta.index();
        this.appliedAbove.addAll(meta.appliedAbove());
        recomputeContiguous();
    }

    LogEntry get(long index) {
        return entries.get(index);
    }

    boolean has(long index) {
        return entries.containsKey(index);
    }

    boolean isDurable(long index) {
        return entries.containsKey(index) && !pendingWrite.containsKey(index);
    }

    long lastIndex() {
        return entries.isEmpty() ? checkpoint.meta().index() : Math.max(entries.lastKey(), checkpoint.meta().index());
    }

    /** Lowest index still held in the log (entries below are only in the checkpoint). */
    long logStart() {
        return entries.isEmpty() ? checkpoint.meta().index() + 1
                : Math.min(entries.firstKey(), checkpoint.meta().index() + 1);
    }

    /** Every entry up to here is held or covered by the checkpoint. */
    long contiguousIndex() {
        return contiguous;
    }

    /** Every entry up to here is committed and held or covered by the checkpoint. */
    long finalPrefix() {
        return Math.max(checkpoint.meta().index(), Math.min(commitPrefix, contiguous));
    }

    long syncedTerm() {
        return syncedTerm;
    }

    /** The group's members as this log defines them now (uncommitted configuration entries included). */
    List<Integer> members() {
        return configurations.isEmpty() ? checkpointMembers() : configurations.lastEntry().getValue();
    }

    /** The members as of {@code index}: the configuration entry at or below it, or the checkpoint's. */
    List<Integer> membersAt(long index) {
        Map.Entry<Long, List<Integer>> e = configurations.floorEntry(index);
        return e == null ? checkpointMembers() : e.getValue();
    }

    /** Index of the highest configuration entry held, or 0 when the configuration comes from below the log. */
    long lastConfigurationIndex() {
        return configurations.isEmpty() ? 0 : configurations.lastKey();
    }

    private List<Integer> checkpointMembers() {
        List<Integer> recorded = checkpoint.meta().members();
        return recorded.isEmpty() ? foundingMembers : recorded;
    }

    private void indexConfiguration(LogEntry e) {
        if (e.isConfiguration()) {
            configurations.put(e.index(), e.members());
        } else {
            configurations.remove(e.index());
        }
    }

    long syncEnd() {
        return syncEnd;
    }

    Checkpoint checkpoint() {
        return checkpoint;
    }

    long commitPrefix() {
        return commitPrefix;
    }

    long appliedPrefix() {
        return appliedPrefix;
    }

    List<Long> committedAboveList() {
        return List.copyOf(committedAbove);
    }

    List<Long> appliedAboveList() {
        return List.copyOf(appliedAbove);
    }

    boolean isCommitted(long index) {
        return index <= commitPrefix || committedAbove.contains(index);
    }

    boolean isApplied(long index) {
        return index <= appliedPrefix || appliedAbove.contains(index);
    }

    /** Entries in {@code (from, to]} that are held, ascending. */
    List<LogEntry> range(long from, long to) {
        if (from >= to) {
            return new ArrayList<>();
        }
        return new ArrayList<>(entries.subMap(from, false, to, true).values());
    }

    /** Writes (or overwrites) an entry whose durability op {@code opId} is under way. */
    void put(LogEntry entry, long opId) {
        entries.put(entry.index(), entry);
        indexConfiguration(entry);
        pendingWrite.put(entry.index(), opId);
        advanceContiguous();
    }

    /** The write {@code opId} of {@code entry} completed; true if that entry is still the one held. */
    boolean markDurable(LogEntry entry, long opId) {
        Long pending = pendingWrite.get(entry.index());
        if (pending != null && pending == opId) {
            pendingWrite.remove(entry.index());
        }
        return entry.equals(entries.get(entry.index())) && !pendingWrite.containsKey(entry.index());
    }

    /** The sync write {@code opId} completed: the merged entries it wrote are durable. */
    void markSyncDurable(long opId) {
        pendingWrite.values().removeIf(pending -> pending == opId);
    }

    /** Replaces everything above {@code base} with a merged log, under way in durability op {@code opId}. */
    void replaceAbove(long base, long newSyncedTerm, long newSyncEnd, List<LogEntry> merged, long opId) {
        NavigableMap<Long, LogEntry> tail = entries.tailMap(base, false);
        for (Long index : tail.keySet()) {
            pendingWrite.remove(index);
        }
        tail.clear();
        configurations.tailMap(base, false).clear();
        for (LogEntry e : merged) {
            entries.put(e.index(), e);
            indexConfiguration(e);
            pendingWrite.put(e.index(), opId);
        }
        syncedTerm = newSyncedTerm;
        syncEnd = newSyncEnd;
        recomputeContiguous();
    }

    /** Learns that every index up to {@code prefix}, and each of {@code above}, is committed. */
    void learnCommitted(long prefix, List<Long> above) {
        if (prefix > commitPrefix) {
            commitPrefix = prefix;
        }
        for (Long index : above) {
            if (index > commitPrefix) {
                committedAbove.add(index);
            }
        }
        committedAbove.headSet(commitPrefix, true).clear();
        while (committedAbove.remove(commitPrefix + 1)) {
            commitPrefix++;
        }
    }

    /**
     * Marks every applicable entry applied, telling the listener in apply order, and returns how
     * many. An entry applies when
     * it is committed and held, every entry more than {@code lookBehind} before it is applied (a
     * wider hole would hide conflicts), and no unapplied entry between overlaps it, judged by both
     * its look-behind buffer and the held predecessor.
     */
    int takeApplicable(int lookBehind, ApplyListener listener) {
        int count = 0;
        boolean progress = true;
        while (progress) {
            progress = false;
            long limit = appliedPrefix + lookBehind + 1;
            for (long i = appliedPrefix + 1; i <= limit; i++) {
                if (isApplied(i) || !isCommitted(i) || !has(i) || blockedByPredecessor(entries.get(i))) {
                    continue;
                }
                appliedAbove.add(i);
                listener.applied(entries.get(i));
                count++;
                progress = true;
                advanceAppliedPrefix(listener);
                break;
            }
        }
        return count;
    }

    private boolean blockedByPredecessor(LogEntry entry) {
        for (long j = appliedPrefix + 1; j < entry.index(); j++) {
            if (isApplied(j)) {
                continue;
            }
            BlockRange recorded = entry.lookBehindRange(j);
            if (recorded == null || recorded.overlaps(entry.range())) {
                return true;
            }
            LogEntry held = entries.get(j);
            if (held != null && held.range().overlaps(entry.range())) {
                return true;
            }
        }
        return false;
    }

    private void advanceAppliedPrefix(ApplyListener listener) {
        while (appliedAbove.remove(appliedPrefix + 1)) {
            appliedPrefix++;
            LogEntry passed = entries.get(appliedPrefix);
            if (passed != null) {
                listener.prefixPassed(passed);
            }
        }
    }

    /** Installs a checkpoint received from the leader: applied state becomes exactly its content. */
    void installCheckpoint(Checkpoint installed) {
        this.checkpoint = installed;
        CheckpointMeta meta = installed.meta();
        entries.headMap(meta.index(), true).keySet().forEach(pendingWrite::remove);
        entries.headMap(meta.index(), true).clear();
        configurations.headMap(meta.index(), true).clear();
        appliedPrefix = meta.index();
        appliedAbove.clear();
        appliedAbove.addAll(meta.appliedAbove());
        // Entries applied above the checkpoint are in the image, but a copy held here may be a stale
        // one from an older term: commit knowledge above the checkpoint comes from the leader only.
        learnCommitted(meta.index(), List.of());
        recomputeContiguous();
    }

    /** Records a locally taken checkpoint and drops entries no longer needed. */
    void checkpointSaved(Checkpoint saved, long compactTo) {
        this.checkpoint = saved;
        entries.headMap(compactTo, true).keySet().forEach(pendingWrite::remove);
        entries.headMap(compactTo, true).clear();
        configurations.headMap(compactTo, true).clear();
        recomputeContiguous();
    }

    /** Told of each entry as it applies, and, in index order, as the applied prefix passes it. */
    interface ApplyListener {
        void applied(LogEntry entry);

        void prefixPassed(LogEntry entry);
    }

    private void advanceContiguous() {
        while (entries.containsKey(contiguous + 1)) {
            contiguous++;
        }
    }

    private void recomputeContiguous() {
        contiguous = checkpoint.meta().index();
        advanceContiguous();
    }
}
