package io.tarn.replication;

/**
 * The tests' payload: one number standing for the bytes of every block a write covers.
 *
 * @param value the number written to each block of the range
 */
public record ValuePayload(long value) implements Payload {

    /** The value of a command written with a {@link ValuePayload}. */
    public static long of(WriteCommand command) {
        return ((ValuePayload) command.payload()).value();
    }

    @Override
    public int length() {
        return Long.BYTES;
    }
}
