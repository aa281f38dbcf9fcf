package io.tarn.replication;

import java.util.List;
import java.util.Objects;

/**
 * One slot of a block group's replicated log.
 *
 * <p>Besides Raft's term and index, a ParallelRaft entry carries the block range it writes and a
 * look-behind buffer: the ranges of the {@code N} entries just before it, as the leader that
 * created it knew them. A replica uses the buffer to decide whether it may apply the entry while
 * some of those predecessors are still missing or unapplied. When a new leader re-stamps an entry
 * during its merge stage only the term changes; range, look-behind and command are the entry's
 * identity and never change.
 *
 * <p>A configuration entry carries no write but the group's new member list; it takes effect on
 * every replica as soon as the replica holds it (see {@link Replica#members()}).
 *
 * @param term       the ballot under which this copy was proposed (re-stamped by a new leader)
 * @param index      position in the log, starting at 1
 * @param range      the blocks the entry writes; {@link BlockRange#EMPTY} for a no-op or a
 *                   configuration entry
 * @param lookBehind ranges of entries {@code index-1, index-2, ...}, at most {@code N} of them,
 *                   nearest first
 * @param command    the client write, or {@code null} for a no-op or a configuration entry
 * @param members    for a configuration entry, the ids of every member from this index on,
 *                   ascending; empty for every other entry
 */
public record LogEntry(long term, long index, BlockRange range, List<BlockRange> lookBehind,
                       WriteCommand command, List<Integer> members) {

    /** Validates the components and freezes the lists. */
    public LogEntry {
        if (index < 1 || term < 0) {
            throw new IllegalArgumentException("bad entry position " + term + "/" + index);
        }
        Objects.requireNonNull(range, "range");
        lookBehind = List.copyOf(lookBehind);
        if (command != null && !command.range().equals(range)) {
            throw new IllegalArgumentException("entry range differs from its command's range");
        }
        if (command == null && !range.isEmpty()) {
            throw new IllegalArgumentException("a no-op writes no blocks");
        }
        members = List.copyOf(members);
        if (!members.isEmpty() && command != null) {
            throw new IllegalArgumentException("a configuration entry carries no write");
        }
    }

    /** An entry that is not a configuration entry. */
    public LogEntry(long term, long index, BlockRange range, List<BlockRange> lookBehind, WriteCommand command) {
        this(term, index, range, lookBehind, command, List.of());
    }

    /** A no-op entry, used by a new leader to fill holes in the merged log. */
    public static LogEntry noop(long term, long index) {
        return new LogEntry(term, index, BlockRange.EMPTY, List.of(), null);
    }

    /** A configuration entry: from {@code index} on, the group's members are {@code members}. */
    public static LogEntry configuration(long term, long index, List<Integer> members) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("a configuration needs at least one member");
        }
        return new LogEntry(term, index, BlockRange.EMPTY, List.of(), null, members.stream().sorted().toList());
    }

    /** Whether the entry carries no client write (a no-op or a configuration entry). */
    public boolean isNoop() {
        return command == null;
    }

    /** Whether the entry changes the group's members. */
    public boolean isConfiguration() {
        return !members.isEmpty();
    }

    /** The same entry proposed again under {@code newTerm}. */
    public LogEntry restamp(long newTerm) {
        return new LogEntry(newTerm, index, range, lookBehind, command, members);
    }

    /**
     * The range of entry {@code otherIndex} as recorded in this entry's look-behind buffer, or
     * {@code null} when the buffer does not reach that far back.
     */
    public BlockRange lookBehindRange(long otherIndex) {
        long distance = index - otherIndex;
        if (distance < 1 || distance > lookBehind.size()) {
            return null;
        }
        return lookBehind.get((int) (distance - 1));
    }

    /** Whether this entry and {@code other} carry the same write, ignoring the ballot. */
    public boolean sameContent(LogEntry other) {
        return index == other.index && range.equals(other.range) && lookBehind.equals(other.lookBehind)
                && Objects.equals(command, other.command) && members.equals(other.members);
    }
}
