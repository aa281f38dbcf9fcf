package io.tarn.client.random;

import java.util.List;

import static io.tarn.client.random.Calls.OK;
import static io.tarn.client.random.Calls.TRUE;

/**
 * One operation on /shared as it happened: logical ticks before it started ({@code start}), when
 * a create's file existed ({@code created}, -1 if the create itself failed) and after it ended.
 * For a listing, {@code dst} is the directory and {@code names} what it showed.
 */
record Event(int client, int seq, Kind kind, String identity, String src, String dst, long start, long created,
             long end, String outcome, List<String> names) {
    /**
     * What an event did: a file created, renamed or deleted; /shared/sub deleted (RMDIR, RMR),
     * created (MKDIRS), renamed away to a fresh name (MOVE_SUB), or such a moved-away directory deleted
     * recursively (DROP_OLD); a listing (LIST).
     */
    enum Kind { CREATE, RENAME, DELETE, RMDIR, RMR, MKDIRS, MOVE_SUB, DROP_OLD, LIST }

    boolean ok() {
        return outcome.equals(OK) || outcome.equals(TRUE);
    }

    /** A real-time order: this ended before {@code other} started. */
    boolean before(Event other) {
        return end < other.start;
    }

    @Override
    public String toString() {
        return "c" + client + "#" + seq + " " + kind + (identity != null ? " [" + identity + "]" : "")
                + (src != null ? " " + src : "") + (dst != null ? " -> " + dst : "") + " @" + start + ".." + end
                + " : " + outcome + (names != null ? " " + names : "");
    }
}
