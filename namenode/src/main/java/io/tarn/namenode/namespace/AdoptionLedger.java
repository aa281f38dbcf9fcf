package io.tarn.namenode.namespace;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * A receiver's record of the files other namenodes moved to it, by the move's ticket (the sender's
 * random number for the attempt, so that a file moved again is a new entry): the id
 * each was adopted under, or that it never will be (the sender asked before any adoption arrived),
 * until the sender has recorded the move's outcome and says so (FILE_ADOPTION_SETTLED). It lets a
 * sender that lost the answer to FILE_ADOPT, or restarted in the middle of a move, learn for sure
 * whether the move happened, even after the adopted file changed, moved on or was deleted here.
 *
 * <p>Kept in the journal (ADOPT and ADOPTION records) and in checkpoints. Entries are few: one per
 * move whose sender has not confirmed it yet.
 */
final class AdoptionLedger {
    /** An adoption under way (never journaled): a FILE_ADOPTION asked meanwhile answers RETRY. */
    static final long PENDING = -2;
    /** Not adopted, and never will be. */
    static final long ABANDONED = -1;

    private final Map<Long, Long> entries = new ConcurrentHashMap<>();

    /** Starts the adoption of {@code ticket}: null when none is known, else what the ledger holds. */
    Long begin(long ticket) {
        return entries.putIfAbsent(ticket, PENDING);
    }

    /** The adoption that {@link #begin} started ended with the file adopted as {@code newId}. */
    void adopted(long ticket, long newId) {
        entries.put(ticket, newId);
    }

    /** The adoption that {@link #begin} started was refused: nothing to remember. */
    void refused(long ticket) {
        entries.remove(ticket, PENDING);
    }

    /**
     * FILE_ADOPTION: the adoption's outcome. When none is known, the file is recorded as never to be
     * adopted, and null is returned (the caller records that too before it answers).
     */
    Long decide(long ticket) {
        return entries.putIfAbsent(ticket, ABANDONED);
    }

    /** The sender recorded the outcome: true when there was an entry to forget. */
    boolean settle(long ticket) {
        Long v = entries.get(ticket);
        return v != null && v != PENDING && entries.remove(ticket, v);
    }

    /** Replay: the entry as a record states it. */
    void restore(long ticket, long newId) {
        entries.put(ticket, newId);
    }

    /** Replay: an entry the sender settled. */
    void forget(long ticket) {
        entries.remove(ticket);
    }

    /** What {@code ticket}'s entry holds, or null. */
    Long get(long ticket) {
        return entries.get(ticket);
    }

    /** Every settled-or-decided entry (not the ones under way), for a checkpoint. */
    void forEach(BiConsumer<Long, Long> action) {
        entries.forEach((from, to) -> {
            if (to != PENDING) {
                action.accept(from, to);
            }
        });
    }

    int size() {
        return entries.size();
    }
}
