package io.tarn.tools.chaos.check;

import java.util.Objects;

/**
 * One operation of a recorded history: who ran it on which key, what it wrote or read, and when it
 * was invoked and completed (System.nanoTime of the recording JVM).
 *
 * <p>A {@link Outcome#FAILED} operation provably had no effect and is ignored by the checker. An
 * {@link Outcome#INDETERMINATE} one (a timeout, a lost connection) may have taken effect at any
 * point after its invocation, or never: its completion time is {@link #NEVER} and, for a read, its
 * value is unknown, so the checker drops indeterminate reads.
 *
 * @param id        unique within the history; names the operation in reports
 * @param client    the client (thread) that ran it; one client runs one operation at a time
 * @param key       the register it acts on (a file of the workload)
 * @param kind      read or write
 * @param value     the value written, or the value read; null for "absent" (the initial state)
 * @param invoke    invocation time in nanoseconds
 * @param complete  completion time in nanoseconds, {@link #NEVER} when indeterminate
 * @param outcome   whether it happened, did not, or may have
 */
public record Operation(long id, int client, String key, Kind kind, String value, long invoke, long complete,
                        Outcome outcome) {
    /** The completion time of an operation whose outcome is unknown. */
    public static final long NEVER = Long.MAX_VALUE;

    /** What an operation does to its register. */
    public enum Kind { READ, WRITE }

    /** Whether the operation took effect. */
    public enum Outcome { OK, FAILED, INDETERMINATE }

    public Operation {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(outcome, "outcome");
        if (kind == Kind.WRITE && (value == null || value.isEmpty())) {
            throw new IllegalArgumentException("operation " + id + ": a write needs a non-empty value");
        }
        if (outcome == Outcome.INDETERMINATE) {
            complete = NEVER;
        } else if (complete < invoke) {
            throw new IllegalArgumentException("operation " + id + " completes (" + complete + ") before it is "
                    + "invoked (" + invoke + ")");
        }
    }

    /** A completed write. */
    public static Operation write(long id, int client, String key, String value, long invoke, long complete) {
        return new Operation(id, client, key, Kind.WRITE, value, invoke, complete, Outcome.OK);
    }

    /** A completed read that returned {@code value} (null: absent). */
    public static Operation read(long id, int client, String key, String value, long invoke, long complete) {
        return new Operation(id, client, key, Kind.READ, value, invoke, complete, Outcome.OK);
    }

    /** This operation with its outcome unknown: it may take effect at any point after its invocation, or never. */
    public Operation indeterminate() {
        return new Operation(id, client, key, kind, kind == Kind.READ ? null : value, invoke, NEVER,
                Outcome.INDETERMINATE);
    }

    /** This operation with another value, for building histories in tests. */
    public Operation withValue(String newValue) {
        return new Operation(id, client, key, kind, newValue, invoke, complete, outcome);
    }

    @Override
    public String toString() {
        String v = value == null ? "absent" : value;
        String done = outcome == Outcome.INDETERMINATE ? "?" : Long.toString(complete);
        return "#" + id + " c" + client + " " + kind.name().toLowerCase() + "(" + key + ")=" + v + " [" + invoke
                + ", " + done + "] " + outcome.name().toLowerCase();
    }
}
