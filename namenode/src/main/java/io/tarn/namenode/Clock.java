package io.tarn.namenode;

/**
 * The namenode's source of time, in milliseconds.
 *
 * <p>Lease expiry, datanode liveness and file times read time only through this interface, so tests
 * drive expiry by advancing a hand-made clock instead of sleeping.
 */
@FunctionalInterface
public interface Clock {
    /** Milliseconds since the epoch (only differences matter for timeouts). */
    long millis();

    /** The wall clock. */
    static Clock system() {
        return System::currentTimeMillis;
    }
}
