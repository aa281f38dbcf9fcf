package io.tarn.namenode.namespace;

import io.tarn.common.fs.FileStatus;

import java.util.Objects;

/**
 * Where a namespace change went, as decided by the same lookup that made it when it could be made
 * here: the answer of {@link Namespace#setAttributes}, {@link Namespace#delete} and
 * {@link Namespace#rename}. With several namenodes a change may belong elsewhere; the namespace
 * says so with a route instead of throwing, so that routing is plain control flow and exceptions
 * are left to errors.
 *
 * <p>Called by the namenode's client dispatch, which switches on {@link #kind()}:
 * <ul>
 *   <li>{@link Kind#DONE}: the change is made here; answer now ({@link #status()} when the
 *       operation answers with one).</li>
 *   <li>{@link Kind#COORDINATOR}: a directory change, which partition 0 sequences; nothing changed
 *       here. Partition 0 runs it through its coordinator; any other namenode answers
 *       AT_COORDINATOR with {@link #reason()}, and the client resends it to partition 0.</li>
 *   <li>{@link Kind#MOVE}: a file renamed to a name another namenode owns; the file is marked
 *       moving and the caller must carry out {@link #move()} and end it with
 *       {@link Namespace#commitMove} or {@link Namespace#abortMove}.</li>
 * </ul>
 * Immutable. A change made here with nothing to answer is one shared instance, so the common case
 * allocates nothing; accessors of another kind's part throw {@link IllegalStateException}.
 */
public final class Route {
    /** What the caller does next. */
    public enum Kind {
        /** Made here. */
        DONE,
        /** For partition 0's directory coordinator; nothing changed here. */
        COORDINATOR,
        /** A file moving to another namenode, for the caller to carry out. */
        MOVE
    }

    private static final Route DONE = new Route(Kind.DONE, null, null, null);

    private final Kind kind;
    private final FileStatus status;
    private final FileMove move;
    private final String reason;

    private Route(Kind kind, FileStatus status, FileMove move, String reason) {
        this.kind = kind;
        this.status = status;
        this.move = move;
        this.reason = reason;
    }

    /** Made here, nothing to answer but success (delete, rename). */
    public static Route done() {
        return DONE;
    }

    /** Made here; the entry is now {@code status}. */
    public static Route done(FileStatus status) {
        return new Route(Kind.DONE, Objects.requireNonNull(status, "status"), null, null);
    }

    /**
     * A directory change for partition 0; {@code reason} is the message a namenode that does not
     * coordinate answers with (code AT_COORDINATOR).
     */
    public static Route toCoordinator(String reason) {
        return new Route(Kind.COORDINATOR, null, null, Objects.requireNonNull(reason, "reason"));
    }

    /** A file that started to move to another namenode. */
    public static Route move(FileMove move) {
        return new Route(Kind.MOVE, null, Objects.requireNonNull(move, "move"), null);
    }

    public Kind kind() {
        return kind;
    }

    /** DONE: the entry's status after the change, or null for a change answered without one. */
    public FileStatus status() {
        expect(Kind.DONE);
        return status;
    }

    /** MOVE: the move to carry out. */
    public FileMove move() {
        expect(Kind.MOVE);
        return move;
    }

    /** COORDINATOR: why, naming the directory and partition 0, for the AT_COORDINATOR answer. */
    public String reason() {
        expect(Kind.COORDINATOR);
        return reason;
    }

    private void expect(Kind wanted) {
        if (kind != wanted) {
            throw new IllegalStateException("a " + kind + " route has no part of a " + wanted + " route");
        }
    }

    @Override
    public String toString() {
        switch (kind) {
            case DONE:
                return status == null ? "DONE" : "DONE " + status.name();
            case COORDINATOR:
                return "COORDINATOR: " + reason;
            default:
                return "MOVE '" + move.srcPath() + "' to '" + move.targetPath() + "'";
        }
    }
}
