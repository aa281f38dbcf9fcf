package io.tarn.replication;

/**
 * Typed, immutable, validated settings of one block group's replication. Times are in ticks: the
 * host decides how long a tick is (the simulator uses one millisecond).
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>mode</td><td>PARALLEL</td><td>out-of-order (ParallelRaft) or in-order (Raft) commit and apply</td></tr>
 *   <tr><td>lookBehind</td><td>2</td><td>N: ranges of the previous N entries carried in each entry</td></tr>
 *   <tr><td>window</td><td>32</td><td>entries the leader may have beyond its commit prefix, and beyond a
 *       follower's acknowledged prefix</td></tr>
 *   <tr><td>electionTimeoutMin/Max</td><td>150/300</td><td>follower waits a random time in this range
 *       without hearing from a leader before it stands for election</td></tr>
 *   <tr><td>heartbeatTicks</td><td>30</td><td>leader heartbeat period</td></tr>
 *   <tr><td>leaseTicks</td><td>120</td><td>how long after a quorum-acknowledged heartbeat the leader serves
 *       reads without a read-index round; 0 disables leases; must stay below electionTimeoutMin</td></tr>
 *   <tr><td>retransmitTicks</td><td>20</td><td>shortest wait before unacknowledged entries and syncs are resent;
 *       entries wait at least the follower's measured acknowledgment time</td></tr>
 *   <tr><td>retransmitMaxTicks</td><td>500</td><td>longest resend wait: each unanswered resend doubles it up
 *       to this</td></tr>
 *   <tr><td>maxBytesInFlight</td><td>16 MiB</td><td>payload bytes sent and unacknowledged per follower; one
 *       entry always goes when nothing is in flight</td></tr>
 *   <tr><td>reliableLinks</td><td>false</td><td>the host's links deliver every message unless they
 *       report it lost ({@link Replica#onSendFailed}): entries and syncs are then resent at the
 *       usual timeouts only after a reported loss, and otherwise at the longest resend wait, as a
 *       safety net</td></tr>
 *   <tr><td>laggardWaitTicks</td><td>3000</td><td>longest a leader refuses new writes for one live voter
 *       about to fall off its log (so it catches up from the log instead of an image); past it the
 *       leader stops waiting and stops keeping the log for that voter, which then catches up from
 *       an image: a voter that is alive but never catches up cannot stall the group</td></tr>
 *   <tr><td>stepDownTicks</td><td>3 &times; electionTimeoutMax</td><td>how long a leader that hears from
 *       no quorum keeps leading before it steps down; at least electionTimeoutMax</td></tr>
 *   <tr><td>preVote</td><td>true</td><td>a follower whose election timer runs out first asks the
 *       members whether they would vote for it, and stands (raising the term) only on a quorum of
 *       yes ({@link Message.PreVote}): a member cut off from a leader the others still hear from
 *       cannot depose it</td></tr>
 *   <tr><td>checkpointInterval</td><td>1024</td><td>applied entries between checkpoints</td></tr>
 *   <tr><td>checkpointBytes</td><td>64 MiB</td><td>payload bytes applied since the last checkpoint that also
 *       start one (whichever comes first), so the log a replica keeps in memory stays bounded by
 *       bytes whatever the write size</td></tr>
 * </table>
 */
public final class ReplicationConfig {

    private final Mode mode;
    private final int lookBehind;
    private final int window;
    private final int electionTimeoutMin;
    private final int electionTimeoutMax;
    private final int heartbeatTicks;
    private final int leaseTicks;
    private final int retransmitTicks;
    private final int retransmitMaxTicks;
    private final long maxBytesInFlight;
    private final int checkpointInterval;
    private final long checkpointBytes;
    private final boolean reliableLinks;
    private final int laggardWaitTicks;
    private final boolean preVote;
    private final int stepDownTicks;
    private final boolean unsafePaperMerge;

    private ReplicationConfig(Builder b) {
        this.mode = b.mode;
        this.lookBehind = b.lookBehind;
        this.window = b.window;
        this.electionTimeoutMin = b.electionTimeoutMin;
        this.electionTimeoutMax = b.electionTimeoutMax;
        this.heartbeatTicks = b.heartbeatTicks;
        this.leaseTicks = b.leaseTicks;
        this.retransmitTicks = b.retransmitTicks;
        this.retransmitMaxTicks = b.retransmitMaxTicks;
        this.maxBytesInFlight = b.maxBytesInFlight;
        this.checkpointInterval = b.checkpointInterval;
        this.checkpointBytes = b.checkpointBytes;
        this.reliableLinks = b.reliableLinks;
        this.laggardWaitTicks = b.laggardWaitTicks;
        this.preVote = b.preVote;
        this.stepDownTicks = b.stepDownTicks > 0 ? b.stepDownTicks : 3 * b.electionTimeoutMax;
        this.unsafePaperMerge = b.unsafePaperMerge;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults. */
    public static ReplicationConfig defaults() {
        return builder().build();
    }

    /** A builder initialised from this config. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.mode = mode;
        b.lookBehind = lookBehind;
        b.window = window;
        b.electionTimeoutMin = electionTimeoutMin;
        b.electionTimeoutMax = electionTimeoutMax;
        b.heartbeatTicks = heartbeatTicks;
        b.leaseTicks = leaseTicks;
        b.retransmitTicks = retransmitTicks;
        b.retransmitMaxTicks = retransmitMaxTicks;
        b.maxBytesInFlight = maxBytesInFlight;
        b.checkpointInterval = checkpointInterval;
        b.checkpointBytes = checkpointBytes;
        b.reliableLinks = reliableLinks;
        b.laggardWaitTicks = laggardWaitTicks;
        b.preVote = preVote;
        b.stepDownTicks = stepDownTicks;
        b.unsafePaperMerge = unsafePaperMerge;
        return b;
    }

    /** Commit and apply ordering. */
    public Mode mode() {
        return mode;
    }

    /** N, the number of predecessor ranges each entry carries. */
    public int lookBehind() {
        return lookBehind;
    }

    /** Maximum entries in flight beyond the commit prefix (and per follower). */
    public int window() {
        return window;
    }

    /** Lower bound of the randomized election timeout, in ticks. */
    public int electionTimeoutMin() {
        return electionTimeoutMin;
    }

    /** Upper bound of the randomized election timeout, in ticks. */
    public int electionTimeoutMax() {
        return electionTimeoutMax;
    }

    /** Heartbeat period, in ticks. */
    public int heartbeatTicks() {
        return heartbeatTicks;
    }

    /** Read lease length, in ticks; 0 means every read runs a read-index round. */
    public int leaseTicks() {
        return leaseTicks;
    }

    /**
     * Shortest resend period for unacknowledged entries and syncs, in ticks; checkpoints are
     * resent after five of these. Entries wait longer when a follower's measured acknowledgment
     * time is longer.
     */
    public int retransmitTicks() {
        return retransmitTicks;
    }

    /** Longest resend period for entries and syncs, in ticks: the back-off stops doubling here. */
    public int retransmitMaxTicks() {
        return retransmitMaxTicks;
    }

    /**
     * Payload bytes the leader keeps sent but unacknowledged per follower; further entries wait
     * for acknowledgments. A follower with nothing in flight always gets one entry, whatever its
     * size.
     */
    public long maxBytesInFlight() {
        return maxBytesInFlight;
    }

    /** Applied entries between checkpoints. */
    public int checkpointInterval() {
        return checkpointInterval;
    }

    /** Payload bytes applied since the last checkpoint that start the next one. */
    public long checkpointBytes() {
        return checkpointBytes;
    }

    /**
     * Whether the host's links are reliable, as TCP connections between members are: a message sent
     * is delivered (not necessarily in order) unless the host reports it lost
     * ({@link Replica#onSendFailed}).
     * A leader then resends an entry or a sync at the usual timeouts only after such a report, and
     * otherwise not before {@link #retransmitMaxTicks} (a safety net for what a follower received
     * and lost in a crash): a slow follower gets each entry once instead of a copy per retransmit
     * period, which over one connection only queues behind the first.
     */
    public boolean reliableLinks() {
        return reliableLinks;
    }

    /**
     * Longest a leader refuses new writes ({@link Status#BUSY}) for one live voter about to fall
     * off its log, counted from the first refusal for it. Waiting lets a voter that is briefly
     * slower than the quorum catch up from the log rather than from a whole image; past this the
     * leader stops waiting for it and stops keeping the log for it, so a voter that stays alive
     * but never catches up (a failing disk, a starved process) costs an image, not the group's
     * availability. It waits again only once the voter caught up.
     */
    public int laggardWaitTicks() {
        return laggardWaitTicks;
    }

    /**
     * Whether a follower whose election timer ran out first runs a pre-vote round
     * ({@link Message.PreVote}) and stands for election only if a quorum would vote for it. Without
     * it a member that stops hearing a healthy leader (a slow link, a stalled process) or whose log
     * is behind raises the term on every timeout, and its answers in the higher term depose the
     * leader each time.
     */
    public boolean preVote() {
        return preVote;
    }

    /**
     * How long a leader keeps leading without hearing from a quorum of voters before it steps down
     * (a leader cut off from the others, or that cannot hear them: its writes cannot commit, and
     * stepping down answers them and sends its clients elsewhere). Longer than an election timeout,
     * because stepping down is not needed for safety and costs an election and a sync of the new
     * leader's log: a quorum of followers stalled for a moment (a GC pause, a starved process) would
     * otherwise depose a leader they come back to. A leader that is really cut off is replaced by
     * the others after their election timeout whatever this is.
     */
    public int stepDownTicks() {
        return stepDownTicks;
    }

    /**
     * Test-only: merge as the PolarFS paper describes (highest ballot per index over all voters,
     * ignoring the synced term). Unsafe; exists so tests can show the checker catches it.
     */
    public boolean unsafePaperMerge() {
        return unsafePaperMerge;
    }

    /** Effective look-behind: in-order mode never applies past an unapplied entry. */
    int applyWindow() {
        return mode == Mode.IN_ORDER ? 0 : lookBehind;
    }

    @Override
    public String toString() {
        return "ReplicationConfig{mode=" + mode + ", N=" + lookBehind + ", window=" + window
                + ", election=" + electionTimeoutMin + ".." + electionTimeoutMax + ", heartbeat=" + heartbeatTicks
                + ", lease=" + leaseTicks + ", retransmit=" + retransmitTicks + ".." + retransmitMaxTicks
                + ", maxBytesInFlight=" + maxBytesInFlight
                + ", checkpointInterval=" + checkpointInterval + ", checkpointBytes=" + checkpointBytes
                + (reliableLinks ? ", reliableLinks" : "")
                + ", laggardWait=" + laggardWaitTicks + ", stepDown=" + stepDownTicks
                + (preVote ? "" : ", noPreVote")
                + (unsafePaperMerge ? ", UNSAFE" : "") + "}";
    }

    /** Mutable builder; {@link #build()} validates the settings and their relations. */
    public static final class Builder {
        private Mode mode = Mode.PARALLEL;
        private int lookBehind = 2;
        private int window = 32;
        private int electionTimeoutMin = 150;
        private int electionTimeoutMax = 300;
        private int heartbeatTicks = 30;
        private int leaseTicks = 120;
        private int retransmitTicks = 20;
        private int retransmitMaxTicks = 500;
        private long maxBytesInFlight = 16L << 20;
        private int checkpointInterval = 1024;
        private long checkpointBytes = 64L << 20;
        private boolean reliableLinks;
        private int laggardWaitTicks = 3000;
        private boolean preVote = true;
        /** 0: three times {@link #electionTimeoutMax}. */
        private int stepDownTicks;
        private boolean unsafePaperMerge;

        private Builder() {
        }

        /** Sets the ordering mode. */
        public Builder mode(Mode value) {
            this.mode = value;
            return this;
        }

        /** Sets N, the look-behind length (1..64). */
        public Builder lookBehind(int value) {
            this.lookBehind = value;
            return this;
        }

        /** Sets the in-flight window (1..4096). */
        public Builder window(int value) {
            this.window = value;
            return this;
        }

        /** Sets the election timeout range in ticks. */
        public Builder electionTimeout(int min, int max) {
            this.electionTimeoutMin = min;
            this.electionTimeoutMax = max;
            return this;
        }

        /** Sets the heartbeat period in ticks. */
        public Builder heartbeatTicks(int value) {
            this.heartbeatTicks = value;
            return this;
        }

        /** Sets the lease length in ticks (0 disables). */
        public Builder leaseTicks(int value) {
            this.leaseTicks = value;
            return this;
        }

        /** Sets the shortest resend period in ticks. */
        public Builder retransmitTicks(int value) {
            this.retransmitTicks = value;
            return this;
        }

        /** Sets the longest resend period in ticks (at least the shortest). */
        public Builder retransmitMaxTicks(int value) {
            this.retransmitMaxTicks = value;
            return this;
        }

        /** Sets the payload bytes in flight per follower (positive). */
        public Builder maxBytesInFlight(long value) {
            this.maxBytesInFlight = value;
            return this;
        }

        /** Sets the number of applied entries between checkpoints. */
        public Builder checkpointBytes(long value) {
            this.checkpointBytes = value;
            return this;
        }

        public Builder checkpointInterval(int value) {
            this.checkpointInterval = value;
            return this;
        }

        /** Declares the host's links reliable ({@link ReplicationConfig#reliableLinks()}). */
        public Builder reliableLinks(boolean value) {
            this.reliableLinks = value;
            return this;
        }

        /** Sets {@link ReplicationConfig#laggardWaitTicks()}. */
        public Builder laggardWaitTicks(int value) {
            this.laggardWaitTicks = value;
            return this;
        }

        /** Turns the pre-vote round on or off ({@link ReplicationConfig#preVote()}). */
        public Builder preVote(boolean value) {
            this.preVote = value;
            return this;
        }

        /** Sets {@link ReplicationConfig#stepDownTicks()}; 0 (the default): three longest election timeouts. */
        public Builder stepDownTicks(int value) {
            this.stepDownTicks = value;
            return this;
        }

        /** Test-only: selects the unsafe merge of the PolarFS paper. */
        public Builder unsafePaperMerge(boolean value) {
            this.unsafePaperMerge = value;
            return this;
        }

        /** Validates and builds. */
        public ReplicationConfig build() {
            require(mode != null, "mode must be set");
            require(lookBehind >= 1 && lookBehind <= 64, "lookBehind must be in 1..64");
            require(window >= 1 && window <= 4096, "window must be in 1..4096");
            require(window >= lookBehind, "window must be at least lookBehind: the leader keeps window entries "
                    + "below its checkpoint so it can always fill a new entry's look-behind buffer");
            require(heartbeatTicks >= 1, "heartbeatTicks must be positive");
            require(electionTimeoutMin > 2 * heartbeatTicks,
                    "electionTimeoutMin must exceed two heartbeats so followers do not time out spuriously");
            require(electionTimeoutMax > electionTimeoutMin, "electionTimeoutMax must exceed electionTimeoutMin");
            require(leaseTicks >= 0 && leaseTicks < electionTimeoutMin - 1,
                    "leaseTicks must be below electionTimeoutMin - 1: a lease outliving the followers' "
                            + "promise not to vote would allow stale reads");
            require(retransmitTicks >= 1, "retransmitTicks must be positive");
            require(retransmitMaxTicks >= retransmitTicks, "retransmitMaxTicks must be at least retransmitTicks");
            require(maxBytesInFlight >= 1, "maxBytesInFlight must be positive");
            require(laggardWaitTicks >= 0, "laggardWaitTicks must not be negative");
            require(stepDownTicks == 0 || stepDownTicks >= electionTimeoutMax,
                    "stepDownTicks must be at least electionTimeoutMax: a leader must not give up before its "
                            + "followers would");
            require(checkpointInterval >= window, "checkpointInterval must be at least the window");
            require(checkpointBytes >= 1, "checkpointBytes must be positive");
            return new ReplicationConfig(this);
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
