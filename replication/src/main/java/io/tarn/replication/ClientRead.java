package io.tarn.replication;

/**
 * A client's request to read a block range linearizably. The leader answers only when it is
 * sure it still leads (valid lease or a completed read-index round) and every earlier write to the
 * range is applied; the host then reads its own state.
 *
 * @param clientId identifies the client
 * @param readId   the client's identifier for this read, echoed in the reply
 * @param range    the blocks to read
 */
public record ClientRead(long clientId, long readId, BlockRange range) {
}
