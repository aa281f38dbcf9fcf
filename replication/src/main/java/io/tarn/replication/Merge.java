package io.tarn.replication;

import io.tarn.replication.Message.VoteReply;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * The merge stage of ParallelRaft-CE, run by a candidate that won its election.
 *
 * <p>Input: the candidate's own log and the entries the granting voters sent (those above the
 * candidate's contiguous index). Only voters whose synced term equals the candidate's contribute:
 * every replica synced to a term holds that term's merged log up to its sync end plus fresh
 * entries of that term above it, so their union is conflict-free, and it contains every committed
 * entry (a committed entry sits on a majority, which meets the vote quorum, and the vote rule
 * makes the candidate's synced term the highest in the quorum). Entries of replicas synced to an
 * older term are ignored even where the candidate has a hole: taking them is the paper's bug, as
 * such a "ghost" may overwrite a slot whose real entry some committed successor's look-behind
 * buffer already relied on. Holes become no-ops and every non-final entry is re-stamped with the
 * new term.
 */
final class Merge {

    private Merge() {
    }

    static MergeResult merge(ReplicaLog own, long newTerm, Collection<VoteReply> granted, boolean unsafePaperMerge) {
        long base = own.finalPrefix();
        TreeMap<Long, LogEntry> chosen = new TreeMap<>();
        for (LogEntry e : own.range(base, Long.MAX_VALUE)) {
            chosen.put(e.index(), e);
        }
        for (VoteReply reply : granted) {
            if (!unsafePaperMerge && reply.syncedTerm() != own.syncedTerm()) {
                continue;
            }
            for (LogEntry e : reply.entries()) {
                offer(chosen, e, base);
            }
        }
        long syncEnd = chosen.isEmpty() ? base : Math.max(base, chosen.lastKey());
        List<LogEntry> merged = new ArrayList<>();
        for (long i = base + 1; i <= syncEnd; i++) {
            LogEntry e = chosen.get(i);
            merged.add(e == null ? LogEntry.noop(newTerm, i) : e.restamp(newTerm));
        }
        return new MergeResult(base, syncEnd, merged);
    }

    /** Keeps, per index, the copy with the highest ballot. */
    private static void offer(TreeMap<Long, LogEntry> chosen, LogEntry e, long base) {
        if (e.index() <= base) {
            return;
        }
        LogEntry current = chosen.get(e.index());
        if (current == null || e.term() > current.term()) {
            chosen.put(e.index(), e);
        }
    }
}
