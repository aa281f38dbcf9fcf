package io.tarn.replication;

/**
 * The data a client write carries, opaque to the core.
 *
 * <p>The core never reads a payload: it keeps it inside the {@link WriteCommand} of a log entry,
 * hands it to the host in {@link DiskOp}s, {@link Message}s and {@link Effect.Apply}, and compares
 * two payloads only with {@link Object#equals} (an entry's identity includes its command).
 * Implementations must therefore be immutable values whose {@code equals} compares content. A
 * datanode carries the written bytes (or a handle on them in its journal); the simulator carries
 * one number that stands for the bytes of every block of the range.
 */
public interface Payload {

    /** Size of the data in bytes, used for accounting; the host decides how it relates to the range. */
    int length();
}
