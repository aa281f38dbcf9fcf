package io.tarn.replication;

import java.util.List;

/**
 * Replica-to-replica messages of one block group. All are immutable values with primitive,
 * list or record fields only, so the transport can encode them onto Tarn's binary wire format; the
 * transport frame carries the group id. Every message carries the sender's current term: a
 * receiver with a lower term adopts it, a receiver with a higher term rejects the message.
 */
public sealed interface Message {

    /** Sending replica id. */
    int from();

    /** Receiving replica id. */
    int to();

    /** The sender's current term. */
    long term();

    /**
     * Whether this message carries log entries or a checkpoint image. A transport should carry
     * these on a connection apart from the rest, so that heartbeats, votes and replies never wait
     * behind megabytes of data: a follower that hears no heartbeat for an election timeout
     * because a large sync occupies its only link stands for election and deposes a healthy
     * leader.
     */
    default boolean carriesData() {
        return this instanceof Append a && !a.entries().isEmpty()
                || this instanceof Sync s && !s.entries().isEmpty()
                || this instanceof InstallCheckpoint;
    }

    /**
     * A candidate asks for a vote and for the voter's non-final entries (merge stage input).
     *
     * @param from            candidate id
     * @param to              voter id
     * @param term            the term the candidate stands in
     * @param syncedTerm      the candidate's synced term; voters refuse a candidate behind them
     * @param lastIndex       the candidate's highest log index (tie-break on equal synced terms)
     * @param contiguousIndex the candidate holds every entry up to here; voters send entries above
     * @param leaderTransfer  true when the old leader asked for this election: voters then ignore
     *                        their recent contact with that leader
     */
    record RequestVote(int from, int to, long term, long syncedTerm, long lastIndex, long contiguousIndex,
                       boolean leaderTransfer) implements Message {
    }

    /**
     * A follower whose election timer ran out asks whether it could win an election before it
     * stands in one (the pre-vote of the Raft thesis, section 9.6). Nothing changes on either
     * side: the sender keeps its term, the receiver neither adopts {@code term} nor records a
     * vote. So a member that lost contact with a leader the others still hear from (a slow or cut
     * link, a stalled process) or whose log is behind cannot raise the group's term and depose
     * that leader. Unlike every other message, {@code term} is not the sender's current term.
     *
     * @param from            the would-be candidate
     * @param to              voter id
     * @param term            the term the sender would stand in: its current term plus one
     * @param syncedTerm      the sender's synced term
     * @param lastIndex       the sender's highest log index
     * @param contiguousIndex the sender holds every entry up to here
     */
    record PreVote(int from, int to, long term, long syncedTerm, long lastIndex, long contiguousIndex)
            implements Message {
    }

    /**
     * A voter's answer to a {@link PreVote}: granted when it would vote for the sender in
     * {@code proposedTerm}, that is it is a voter, has not heard from a leader within the minimum
     * election timeout, is in an older term and finds the sender's log current.
     *
     * @param from         voter id
     * @param to           the would-be candidate
     * @param term         the voter's current term (adopted by the sender when higher than its own)
     * @param proposedTerm the term of the {@link PreVote} answered
     * @param granted      whether the voter would vote
     */
    record PreVoteReply(int from, int to, long term, long proposedTerm, boolean granted) implements Message {
    }

    /**
     * A voter's answer, sent only after its vote is durable.
     *
     * @param from        voter id
     * @param to          candidate id
     * @param term        the voter's current term
     * @param granted     whether the vote is granted
     * @param voter       whether the sender counts in quorums (false while it rejoins)
     * @param syncedTerm  the voter's synced term; its entries count only if it equals the candidate's
     * @param logStart    lowest index the voter still holds in its log
     * @param entries     the voter's entries above the candidate's contiguous index (when granted)
     */
    record VoteReply(int from, int to, long term, boolean granted, boolean voter, long syncedTerm,
                     long logStart, List<LogEntry> entries) implements Message {
        /** Freezes the list. */
        public VoteReply {
            entries = List.copyOf(entries);
        }
    }

    /**
     * The leader installs its merged log on a follower: above {@code baseIndex} the follower's log
     * becomes exactly {@code entries} (indices {@code baseIndex+1..syncEnd}), its synced term
     * becomes {@code term}.
     *
     * @param from         leader id
     * @param to           follower id
     * @param term         the leader's term
     * @param baseIndex    entries up to here must already be final on the follower
     * @param syncEnd      the last index of the merged log
     * @param entries      the leader's entries from {@code baseIndex+1} to {@code syncEnd}
     * @param commitPrefix every index up to here is committed
     */
    record Sync(int from, int to, long term, long baseIndex, long syncEnd, List<LogEntry> entries,
                long commitPrefix) implements Message {
        /** Freezes the list. */
        public Sync {
            entries = List.copyOf(entries);
        }
    }

    /**
     * The follower's answer to a {@link Sync}, sent after the sync is durable when successful.
     *
     * @param from        follower id
     * @param to          leader id
     * @param term        the follower's current term
     * @param success     whether the follower's log now equals the merged log
     * @param voter       whether the sender counts in quorums
     * @param finalPrefix every entry up to here is final on the follower (resend base on failure)
     */
    record SyncReply(int from, int to, long term, boolean success, boolean voter, long finalPrefix)
            implements Message {
    }

    /**
     * New entries of the leader's term, commit information and heartbeat in one message.
     *
     * @param from           leader id
     * @param to             follower id
     * @param term           the leader's term; every entry carries it too
     * @param entries        entries to persist, in any order, possibly none (heartbeat)
     * @param commitPrefix   every index up to here is committed
     * @param committedAbove committed indices above {@code commitPrefix} (bounded by the window)
     * @param probe          heartbeat number echoed back; confirms leadership for leases and reads
     * @param promote        asks a rejoined non-voter to become a voter again
     */
    record Append(int from, int to, long term, List<LogEntry> entries, long commitPrefix,
                  List<Long> committedAbove, long probe, boolean promote) implements Message {
        /** Freezes the lists. */
        public Append {
            entries = List.copyOf(entries);
            committedAbove = List.copyOf(committedAbove);
        }
    }

    /**
     * A follower's acknowledgment: entries of {@code term} now durable, and the heartbeat echo.
     *
     * @param from        follower id
     * @param to          leader id
     * @param term        the follower's current term
     * @param synced      false when the follower has not synced this term's merged log yet
     * @param voter       whether the sender counts in quorums
     * @param acked       indices of entries of {@code term} that are durable on the follower
     * @param finalPrefix every entry up to here is final on the follower
     * @param probe       the highest heartbeat number received
     */
    record AppendReply(int from, int to, long term, boolean synced, boolean voter, List<Long> acked,
                       long finalPrefix, long probe) implements Message {
        /** Freezes the list. */
        public AppendReply {
            acked = List.copyOf(acked);
        }
    }

    /**
     * Streaming copy for a follower behind the leader's checkpoint: the image is installed, then
     * the log after the checkpoint follows through {@link Sync} and {@link Append}.
     *
     * @param from  leader id
     * @param to    follower id
     * @param term  the leader's term
     * @param meta  what the image contains
     * @param image the group's data at the checkpoint
     */
    record InstallCheckpoint(int from, int to, long term, CheckpointMeta meta, StateImage image)
            implements Message {
    }

    /**
     * The follower's answer once the installed checkpoint is durable.
     *
     * @param from        follower id
     * @param to          leader id
     * @param term        the follower's current term
     * @param voter       whether the sender counts in quorums
     * @param finalPrefix every entry up to here is final on the follower
     */
    record InstallCheckpointReply(int from, int to, long term, boolean voter, long finalPrefix)
            implements Message {
    }

    /**
     * The leader hands leadership over: the receiver starts an election at once.
     *
     * @param from old leader id
     * @param to   chosen successor id
     * @param term the old leader's term
     */
    record TimeoutNow(int from, int to, long term) implements Message {
    }
}
