package io.tarn.replication.host;

/** What a journal did with an appended operation: back-pressure and failure as values, not exceptions. */
public enum Admission {
    /** Queued; the listener hears when it is durable. */
    QUEUED,
    /**
     * The shared journal queue is full and nothing was queued: append the same operation again (before
     * any later one of the group) after the next completion or tick.
     */
    BUSY,
    /** The journal has failed; {@link ReplicaJournal#failure()} says why. Nothing was queued. */
    FAILED
}
