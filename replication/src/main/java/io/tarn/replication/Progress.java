package io.tarn.replication;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The leader's view of one follower: whether it synced this term's merged log, which entries it
 * acknowledged (a prefix plus a set above, since acknowledgments arrive out of order), what is in
 * flight, and when it was last heard from.
 */
final class Progress {

    static final long NEVER = Long.MIN_VALUE / 2;

    final int id;
    boolean voter = true;
    boolean synced;
    long finalPrefix;
    long ackPrefix;
    final TreeSet<Long> ackedAbove = new TreeSet<>();
    final Map<Long, Long> sentAt = new HashMap<>();
    long syncSentAt = NEVER;
    long checkpointSentAt = NEVER;
    long probeAcked;
    long lastContact;
    long rejoinProbe = -1;
    boolean promote;

    Progress(int id, long finalPrefixGuess, long now) {
        this.id = id;
        this.finalPrefix = finalPrefixGuess;
        this.lastContact = now;
    }

    boolean acked(long index) {
        return index <= ackPrefix || ackedAbove.contains(index);
    }

    /**
     * The follower acknowledged {@code index}. Counted only for an entry sent to it since it last
     * (re)synced: an acknowledgment still in the network from before (a follower restarted on a
     * wiped disk, then resynced, in the same term) speaks for a log the follower no longer has, and
     * counting it would let the leader skip the entry and commit what too few replicas hold.
     */
    void ack(long index) {
        if (index <= ackPrefix || sentAt.remove(index) == null) {
            return;
        }
        ackedAbove.add(index);
        while (ackedAbove.remove(ackPrefix + 1)) {
            ackPrefix++;
        }
    }

    /** Everything up to {@code index} is durable on the follower. */
    void ackThrough(long index) {
        if (index > ackPrefix) {
            ackPrefix = index;
            ackedAbove.headSet(index, true).clear();
            sentAt.keySet().removeIf(i -> i <= index);
            while (ackedAbove.remove(ackPrefix + 1)) {
                ackPrefix++;
            }
        }
    }

    /** The follower needs this term's merged log again (new, restarted from a lost disk, ...). */
    void unsynced(long reportedFinalPrefix) {
        synced = false;
        finalPrefix = reportedFinalPrefix;
        ackPrefix = 0;
        ackedAbove.clear();
        sentAt.clear();
    }
}
