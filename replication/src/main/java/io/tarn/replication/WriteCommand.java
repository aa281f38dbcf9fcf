package io.tarn.replication;

import java.util.Objects;

/**
 * A client's block write as carried inside a log entry.
 *
 * <p>The pair {@code (clientId, sequence)} identifies the request across retries: the replicated
 * session table applies it at most once. {@code firstUnacked} lets replicas forget old sequence
 * numbers: the client promises it will never retry a sequence below it.
 *
 * @param clientId     identifies the writing client (unique per client incarnation)
 * @param sequence     the client's request number, positive and increasing per client
 * @param firstUnacked the lowest sequence for which the client has not yet seen a reply
 * @param range        the blocks written
 * @param payload      the data written; the host decides what a block of the range is (a datanode
 *                     uses bytes of the group's storage, the simulator whole blocks)
 */
public record WriteCommand(long clientId, long sequence, long firstUnacked, BlockRange range, Payload payload) {

    /** Validates the components. */
    public WriteCommand {
        if (sequence <= 0 || firstUnacked <= 0 || firstUnacked > sequence) {
            throw new IllegalArgumentException("bad sequence " + sequence + "/" + firstUnacked);
        }
        if (range.isEmpty()) {
            throw new IllegalArgumentException("a write must cover at least one block");
        }
        Objects.requireNonNull(payload, "payload");
    }
}
