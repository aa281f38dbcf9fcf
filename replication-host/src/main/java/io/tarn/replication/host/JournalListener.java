package io.tarn.replication.host;

/**
 * Where a journal reports outcomes, typically by posting them to the group's event loop (the calls
 * come from the journal writer thread, or from the appending thread for {@link MemoryJournal}, and
 * must not block).
 */
public interface JournalListener {

    /**
     * Operation {@code opId} of group {@code groupId} is durable, and so is every operation of that
     * group appended before it: calls come in append order per group.
     */
    void durable(long groupId, long opId);

    /**
     * The group's journal failed and acknowledges nothing more, with a reason an operator can act on,
     * such as {@code journal /data/journal/group-7 is full: No space left on device}. Called once.
     */
    void failed(long groupId, String reason);
}
