package io.tarn.replication;

/**
 * Outcome of a client request, with a stable numeric code for the wire. Unknown codes decode to
 * {@link #UNKNOWN} so an old client survives a newer server.
 */
public enum Status {
    /** The write is applied, or the read may be served from the replica's state now. */
    OK(0),
    /** This replica is not the leader; the reply carries the leader it believes in, if any. */
    NOT_LEADER(1),
    /** The leader has not finished syncing its merged log, or is handing leadership over. */
    LEADER_NOT_READY(2),
    /** The in-flight window is full; retry later (back-pressure as a value). */
    BUSY(3),
    /** Leadership was lost before the request completed; its outcome is unknown. */
    ABORTED(4),
    /** A code this version does not know. */
    UNKNOWN(-1);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The stable wire code. */
    public int code() {
        return code;
    }

    /** Decodes a wire code, mapping unknown values to {@link #UNKNOWN}. */
    public static Status fromCode(int code) {
        for (Status status : values()) {
            if (status.code == code) {
                return status;
            }
        }
        return UNKNOWN;
    }
}
