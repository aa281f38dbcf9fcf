package io.tarn.replication;

/**
 * The tests' payload: one number standing for the bytes of every block a write covers, and the
 * size the write claims, so flow control by bytes can be exercised without carrying the bytes.
 *
 * @param value  the number written to each block of the range
 * @param length the size in bytes the payload stands for
 */
public record ValuePayload(long value, int length) implements Payload {

    /** A payload of the size of its one number. */
    public ValuePayload(long value) {
        this(value, Long.BYTES);
    }

    /** The value of a command written with a {@link ValuePayload}. */
    public static long of(WriteCommand command) {
        return ((ValuePayload) command.payload()).value();
    }
}
