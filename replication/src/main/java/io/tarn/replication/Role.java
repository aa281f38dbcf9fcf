package io.tarn.replication;

/**
 * The role a replica currently plays. Legal transitions:
 * <pre>
 *   FOLLOWER  -- election timeout, or TimeoutNow from the leader (members that are voters) --> CANDIDATE
 *   CANDIDATE -- election timeout --> CANDIDATE (next term)
 *   CANDIDATE -- votes from a quorum --> LEADER (merge stage, then sync stage, then active)
 *   CANDIDATE -- higher term, or a leader of its own term --> FOLLOWER
 *   LEADER    -- higher term, lost quorum contact, leadership handed over, or its own removal
 *                committed --> FOLLOWER
 * </pre>
 * A replica that lost its disk, or a new member, is a FOLLOWER that is not a voter: it neither
 * votes nor stands for election until the leader promotes it.
 */
public enum Role {
    /** Accepts entries from the leader of its term. */
    FOLLOWER,
    /** Asks for votes and collects the voters' non-final entries for the merge stage. */
    CANDIDATE,
    /** Replicates entries; serves clients once its merged log is synced to a quorum. */
    LEADER
}
