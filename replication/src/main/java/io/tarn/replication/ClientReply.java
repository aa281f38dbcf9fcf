package io.tarn.replication;

/** The answer to a client request, emitted by the replica that received it. */
public sealed interface ClientReply {

    /** The requesting client. */
    long clientId();

    /** The outcome. */
    Status status();

    /** The replica believed to lead the group, or -1 when unknown; a hint for redirects. */
    int leaderHint();

    /**
     * The outcome of a {@link ClientWrite}.
     *
     * @param clientId   the writer
     * @param sequence   the write's sequence number
     * @param status     {@link Status#OK} once the write is applied on the leader
     * @param leaderHint the leader to retry at, or -1
     */
    record WriteReply(long clientId, long sequence, Status status, int leaderHint) implements ClientReply {
    }

    /**
     * The outcome of a {@link ClientRead}. On {@link Status#OK} the host reads the range from its
     * own state at the moment it handles this reply, before applying any later effect.
     *
     * @param clientId   the reader
     * @param readId     the client's read identifier
     * @param range      the blocks to read
     * @param status     whether the read may be served
     * @param leaderHint the leader to retry at, or -1
     */
    record ReadReply(long clientId, long readId, BlockRange range, Status status, int leaderHint)
            implements ClientReply {
    }
}
