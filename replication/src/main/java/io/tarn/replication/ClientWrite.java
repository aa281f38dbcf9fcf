package io.tarn.replication;

/**
 * A client's request to write a block range, submitted to the replica the client believes leads
 * the group. Retrying with the same {@link WriteCommand#sequence()} is safe: the write takes effect
 * at most once.
 *
 * @param command the write itself
 */
public record ClientWrite(WriteCommand command) {
}
