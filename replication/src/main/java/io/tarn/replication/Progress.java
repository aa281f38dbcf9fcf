package io.tarn.replication;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The leader's view of one follower: whether it synced this term's merged log, which entries it
 * acknowledged (a prefix plus a set above, since acknowledgments arrive out of order), what is in
 * flight, and when it was last heard from.
 *
 * <p>It also holds the follower's flow control. Entries sent and not yet acknowledged count their
 * payload bytes in flight; the leader sends a new entry only while that stays within the cap, or
 * when nothing is in flight (one entry always goes, however large, so progress never stalls).
 * Unacknowledged entries are resent after a timeout measured from this follower's acknowledgment
 * latency (Jacobson's estimator, sampling only entries sent once, as in Karn's rule), never below
 * the configured retransmit period; each resend round without a fresh sample doubles it up to the
 * configured maximum; a follower heard from again after a silence starts over from the minimum.
 * A journal that takes longer to force than the retransmit period therefore gets each entry about
 * once instead of a copy per period.
 *
 * <p>Over {@link ReplicationConfig#reliableLinks() reliable links} nothing is lost unless the host
 * says so: a loss is suspected only after a reported failed send (and until the follower next
 * acknowledges an entry sent once); otherwise the leader waits the longest resend period, a safety
 * net for what a follower received and lost in a crash, instead of the estimate. A silence is no
 * sign of loss there: under load the follower's answers queue behind the data on its connection.
 */
final class Progress {

    static final long NEVER = Long.MIN_VALUE / 2;
    /** Doublings beyond which the back-off cannot grow (the maximum caps it long before). */
    private static final int MAX_BACKOFF_SHIFT = 20;

    /** One entry sent and not yet acknowledged; mutated on resend, so a resend allocates nothing. */
    static final class InFlight {
        long sentAt;
        final int bytes;
        boolean resent;

        InFlight(long sentAt, int bytes) {
            this.sentAt = sentAt;
            this.bytes = bytes;
        }
    }

    final int id;
    boolean voter = true;
    boolean synced;
    long finalPrefix;
    long ackPrefix;
    final TreeSet<Long> ackedAbove = new TreeSet<>();
    final Map<Long, InFlight> inFlight = new HashMap<>();
    long bytesInFlight;
    long syncSentAt = NEVER;
    int syncResends;
    long checkpointSentAt = NEVER;
    long probeAcked;
    long lastContact;
    long rejoinProbe = -1;
    boolean promote;
    /**
     * Over reliable links: a send to this follower failed and it has not since acknowledged an
     * entry sent once; what is in flight may be lost and is resent at the usual timeouts meanwhile.
     */
    boolean lossSuspected;
    /**
     * When the leader first refused a write because this voter was about to fall off its log;
     * {@link #NEVER} while it is not. Cleared once it caught up.
     */
    long laggingSince = NEVER;
    /** Smoothed acknowledgment latency and its mean deviation, in ticks; negative until sampled. */
    private double ackLatency = -1;
    private double ackLatencyDeviation;
    private int backoff;

    Progress(int id, long finalPrefixGuess, long now) {
        this.id = id;
        this.finalPrefix = finalPrefixGuess;
        this.lastContact = now;
    }

    boolean acked(long index) {
        return index <= ackPrefix || ackedAbove.contains(index);
    }

    /**
     * Whether a new entry of {@code bytes} may be sent now: it fits under {@code cap} with what is
     * in flight, or nothing is in flight.
     */
    boolean admits(int bytes, long cap) {
        return bytesInFlight == 0 || bytesInFlight + bytes <= cap;
    }

    /** Records that {@code index}, of {@code bytes} payload bytes, was sent (again) at {@code now}. */
    void sent(long index, int bytes, long now) {
        InFlight f = inFlight.get(index);
        if (f == null) {
            inFlight.put(index, new InFlight(now, bytes));
            bytesInFlight += bytes;
        } else {
            f.sentAt = now;
            f.resent = true;
        }
    }

    /**
     * The follower acknowledged {@code index}. Counted only for an entry sent to it since it last
     * (re)synced: an acknowledgment still in the network from before (a follower restarted on a
     * wiped disk, then resynced, in the same term) speaks for a log the follower no longer has, and
     * counting it would let the leader skip the entry and commit what too few replicas hold.
     */
    void ack(long index, long now) {
        if (index <= ackPrefix) {
            return;
        }
        InFlight f = inFlight.remove(index);
        if (f == null) {
            return;
        }
        bytesInFlight -= f.bytes;
        if (!f.resent) {
            sampleAckLatency(now - f.sentAt);
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
            inFlight.entrySet().removeIf(e -> {
                if (e.getKey() <= index) {
                    bytesInFlight -= e.getValue().bytes;
                    return true;
                }
                return false;
            });
            while (ackedAbove.remove(ackPrefix + 1)) {
                ackPrefix++;
            }
        }
    }

    /**
     * A fresh sample: an entry sent once was acknowledged after {@code ticks}. It updates the
     * estimate and ends any back-off and suspicion of loss, since the follower is demonstrably
     * receiving and answering.
     */
    private void sampleAckLatency(long ticks) {
        lossSuspected = false;
        if (ackLatency < 0) {
            ackLatency = ticks;
            ackLatencyDeviation = ticks / 2.0;
        } else {
            ackLatencyDeviation += (Math.abs(ticks - ackLatency) - ackLatencyDeviation) / 4;
            ackLatency += (ticks - ackLatency) / 8;
        }
        backoff = 0;
    }

    /**
     * Ticks after which an unacknowledged entry is resent: the estimated acknowledgment time
     * (mean plus four deviations) but at least {@code minTicks}, doubled per unanswered resend
     * round, at most {@code maxTicks}.
     */
    long retransmitTimeout(int minTicks, int maxTicks) {
        long base = minTicks;
        if (ackLatency >= 0) {
            base = Math.max(base, (long) Math.ceil(ackLatency + 4 * ackLatencyDeviation));
        }
        return Math.min(maxTicks, base << backoff);
    }

    /**
     * The follower was heard from at {@code now}. After a silence longer than {@code silentTicks}
     * (it was down or cut off) the back-offs restart from the minimum: they grew while nothing
     * could arrive, and a returning follower should get what it misses at once.
     */
    void heard(long now, long silentTicks) {
        if (now - lastContact > silentTicks) {
            backoff = 0;
            syncResends = 0;
        }
        lastContact = now;
    }

    /** A resend round went out: the next one waits twice as long (up to the maximum). */
    void backOff() {
        backoff = Math.min(backoff + 1, MAX_BACKOFF_SHIFT);
    }

    /**
     * Ticks after which an unacknowledged entry is resent, over links that are {@code reliable} or
     * not: over reliable ones the longest period unless a loss is suspected.
     */
    long retransmitTimeout(int minTicks, int maxTicks, boolean reliable) {
        return reliable && !lossSuspected ? maxTicks : retransmitTimeout(minTicks, maxTicks);
    }

    /**
     * Whether the sync is due again: {@code minTicks} after the first send, doubling per resend
     * without a reply, at most {@code maxTicks}; over {@code reliable} links only {@code maxTicks}
     * after it unless a loss is suspected.
     */
    boolean syncDue(long now, int minTicks, int maxTicks, boolean reliable) {
        if (reliable && !lossSuspected && syncSentAt != NEVER) {
            return now - syncSentAt >= maxTicks;
        }
        return syncDue(now, minTicks, maxTicks);
    }

    /**
     * Whether the sync is due again: {@code minTicks} after the first send, doubling per resend
     * without a reply, at most {@code maxTicks}.
     */
    boolean syncDue(long now, int minTicks, int maxTicks) {
        long timeout = Math.min(maxTicks, (long) minTicks << Math.min(syncResends, MAX_BACKOFF_SHIFT));
        return now - syncSentAt >= timeout;
    }

    /** The follower needs this term's merged log again (new, restarted from a lost disk, ...). */
    void unsynced(long reportedFinalPrefix) {
        synced = false;
        finalPrefix = reportedFinalPrefix;
        ackPrefix = 0;
        ackedAbove.clear();
        inFlight.clear();
        bytesInFlight = 0;
        backoff = 0;
    }
}
