package io.tarn.replication;

import java.util.List;
import java.util.Map;

/**
 * Describes exactly which log entries a checkpoint image contains, so a replica restored from it
 * re-applies neither too much nor too little.
 *
 * <p>With out-of-order apply the applied set is not a prefix: it is every entry up to
 * {@code index} plus the entries in {@code appliedAbove}.
 *
 * @param index        every entry at or below it is in the image; the log below may be dropped
 * @param appliedAbove entries above {@code index} that are also in the image, ascending
 * @param sessions     the at-most-once table at that point, by client id
 * @param members      the group's members as of {@code index}, ascending; empty means the
 *                     founding members the replica was constructed with (no change yet)
 */
public record CheckpointMeta(long index, List<Long> appliedAbove, Map<Long, SessionSnapshot> sessions,
                             List<Integer> members) {

    /** The state of a group that has applied nothing. */
    public static final CheckpointMeta INITIAL = new CheckpointMeta(0, List.of(), Map.of());

    /** Freezes the collections. */
    public CheckpointMeta {
        if (index < 0) {
            throw new IllegalArgumentException("negative checkpoint index");
        }
        appliedAbove = List.copyOf(appliedAbove);
        sessions = Map.copyOf(sessions);
        members = List.copyOf(members);
    }

    /** A checkpoint of a group whose founding members never changed. */
    public CheckpointMeta(long index, List<Long> appliedAbove, Map<Long, SessionSnapshot> sessions) {
        this(index, appliedAbove, sessions, List.of());
    }
}
