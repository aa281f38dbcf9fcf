package io.tarn.replication.host;

import io.netty.util.concurrent.EventExecutor;
import io.tarn.common.config.ConfigException;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.DiskOp;
import io.tarn.replication.Message;
import io.tarn.replication.Mode;
import io.tarn.replication.PersistentState;
import io.tarn.replication.Replica;
import io.tarn.replication.ReplicationConfig;
import io.tarn.rpc.Transport;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The block groups one datanode hosts: for each, a {@link GroupRunner} on one of the host's
 * {@link ReplicationLoops}, wired to the other members through the shared {@link PeerMessenger}
 * and to the group's {@link ReplicaJournal}, whose completions and failures it hands to the runner
 * ({@link JournalListener}). An op the journal pushes back ({@link Admission#BUSY}) is held and
 * offered again, before any later op of the group, at the next op or tick. {@link #service()} is
 * the handler of the messages between members ({@link ReplicaMessages}).
 *
 * <p>Thread-safe: groups are created and removed from any thread; lookups are lock-free.
 */
public final class ReplicationHost implements JournalListener, AutoCloseable {

    /**
     * The host's settings.
     *
     * @param config              every group's protocol settings, in ticks
     * @param tickNanos           the length of one tick
     * @param requestTimeoutNanos how long a client request waits for its group
     * @param threads             replication loops
     * @param heldBytes           bytes of client writes the groups' leaders may hold together while
     *                            their windows are full ({@link HeldWrites})
     * @param timerNanos          how often each loop's timer delivers the ticks due (at least one
     *                            tick): a longer period wakes an idle host less often and delivers
     *                            several ticks at once, at the cost of that much jitter on heartbeats
     *                            and timeouts
     */
    public record Settings(ReplicationConfig config, long tickNanos, long requestTimeoutNanos, int threads,
                           long heldBytes, long timerNanos) {

        public Settings {
            if (timerNanos < tickNanos) {
                throw new IllegalArgumentException("the timer period (" + timerNanos + " ns) is shorter than a tick ("
                        + tickNanos + " ns)");
            }
        }

        /** Settings whose timer fires every tick. */
        public Settings(ReplicationConfig config, long tickNanos, long requestTimeoutNanos, int threads,
                        long heldBytes) {
            this(config, tickNanos, requestTimeoutNanos, threads, heldBytes, tickNanos);
        }

        /** These settings with the timer firing every {@code nanos} (a whole number of ticks is not needed). */
        public Settings withTimerNanos(long nanos) {
            return new Settings(config, tickNanos, requestTimeoutNanos, threads, heldBytes, nanos);
        }

        /**
         * Replication settings from a configuration: ticks of 1 ms, the protocol's times and sizes
         * from the {@code tarn.replication.*} keys (an election timeout between the key's value and
         * twice it), requests that wait at most {@code tarn.rpc.timeout}, held writes up to
         * {@code tarn.replication.held.bytes} but never more than a quarter of the heap.
         *
         * @throws ConfigException when the keys contradict each other (a lease not below the election
         *                         timeout, a heartbeat not below the lease), naming them
         */
        public static Settings of(TarnConfig config, Mode mode) {
            int election = (int) (long) config.get(TarnKeys.REPLICATION_ELECTION_TIMEOUT);
            ReplicationConfig.Builder b = ReplicationConfig.builder()
                    .mode(mode)
                    .window(config.get(TarnKeys.REPLICATION_WINDOW))
                    .electionTimeout(election, 2 * election)
                    .stepDownTicks((int) (long) config.get(TarnKeys.REPLICATION_STEP_DOWN))
                    .heartbeatTicks((int) (long) config.get(TarnKeys.REPLICATION_HEARTBEAT_INTERVAL))
                    .leaseTicks((int) (long) config.get(TarnKeys.REPLICATION_LEASE))
                    .checkpointInterval(config.get(TarnKeys.REPLICATION_CHECKPOINT_INTERVAL))
                    .checkpointBytes(config.get(TarnKeys.REPLICATION_CHECKPOINT_BYTES))
                    .maxBytesInFlight(config.get(TarnKeys.REPLICATION_MAX_BYTES_IN_FLIGHT))
                    .laggardWaitTicks((int) (long) config.get(TarnKeys.REPLICATION_LAGGARD_WAIT))
                    .preVote(config.get(TarnKeys.REPLICATION_PRE_VOTE))
                    // One TCP connection per pair of members, and PeerMessenger reports what it could
                    // not deliver: entries are resent only after a loss, not once per retransmit period.
                    .reliableLinks(true);
            ReplicationConfig replication;
            try {
                replication = b.build();
            } catch (IllegalArgumentException e) {
                String keys = TarnKeys.REPLICATION_ELECTION_TIMEOUT + " = " + election + " ms, "
                        + TarnKeys.REPLICATION_STEP_DOWN + " = " + config.get(TarnKeys.REPLICATION_STEP_DOWN) + " ms, "
                        + TarnKeys.REPLICATION_HEARTBEAT_INTERVAL + " = "
                        + config.get(TarnKeys.REPLICATION_HEARTBEAT_INTERVAL) + " ms, "
                        + TarnKeys.REPLICATION_LEASE + " = " + config.get(TarnKeys.REPLICATION_LEASE) + " ms";
                throw new ConfigException("the replication keys do not fit together (" + keys + "): " + e.getMessage());
            }
            return new Settings(replication, TimeUnit.MILLISECONDS.toNanos(1),
                    TimeUnit.MILLISECONDS.toNanos(config.get(TarnKeys.RPC_TIMEOUT)),
                    config.get(TarnKeys.REPLICATION_THREADS),
                    Math.min(config.get(TarnKeys.REPLICATION_HELD_BYTES), Runtime.getRuntime().maxMemory() / 4));
        }
    }

    /**
     * A group hosted here.
     *
     * @param members its members
     * @param runner  its replica's runner
     * @param store   its block state on this datanode
     * @param journal its replica's journal
     * @param staging the checkpoint image being received for it (its loop only)
     */
    public record Hosted(GroupMembers members, GroupRunner runner, GroupStore store, ReplicaJournal journal,
                         ImageStaging staging) {
    }

    /**
     * Direct memory that images received by groups with memory journals may take together while
     * they are staged: a region or two of the default size. One image is always admitted.
     */
    static final long MEMORY_STAGING_LIMIT = 1L << 30;

    private final Settings settings;
    private final String process;
    private final ReplicationLoops loops;
    private final PeerMessenger messenger;
    private final ReplicaMessages messages;
    private final ConcurrentHashMap<Long, Hosted> groups = new ConcurrentHashMap<>();
    private final ImageStaging.Budget stagingBudget = new ImageStaging.Budget(MEMORY_STAGING_LIMIT);
    private final HeldWrites.Budget heldBudget;
    /**
     * Votes asked of this datanode for groups it does not host yet, with when they arrived: a new
     * group's first candidate asks as soon as the namenode names it, often before the command to
     * host the group reaches the other members, and a vote request dropped there cost the group an
     * election timeout or more (and competing candidates) before its first write. Kept
     * {@link #EARLY_KEEP_NANOS}, at most {@link #EARLY_GROUPS} groups of {@link #EARLY_PER_GROUP}
     * messages, and handed to the group when it is hosted.
     */
    private final ConcurrentHashMap<Long, List<Early>> early = new ConcurrentHashMap<>();
    static final long EARLY_KEEP_NANOS = TimeUnit.SECONDS.toNanos(2);
    static final int EARLY_GROUPS = 64;
    static final int EARLY_PER_GROUP = 8;

    private record Early(long arrived, Message message) {
    }
    private volatile LongConsumer unknownGroup = id -> { };

    /**
     * @param transport the datanode's transport, for connections to other members
     * @param settings  the host's settings
     * @param process   what hosts the groups, as errors name it ("datanode", "namenode")
     * @param name      thread name prefix
     */
    public ReplicationHost(Transport transport, Settings settings, String process, String name) {
        this.settings = settings;
        this.process = process;
        this.heldBudget = new HeldWrites.Budget(settings.heldBytes());
        this.loops = new ReplicationLoops(settings.threads(), settings.timerNanos(), name);
        ReplicationCodec codec = new ReplicationCodec(StagedRef.CODEC);
        this.messenger = new PeerMessenger(transport, codec);
        this.messages = new ReplicaMessages(this, codec);
    }

    /**
     * Told the id of each group a request named that this datanode does not host (it may be a new
     * group whose creation has not reached this datanode yet); on the calling I/O thread, so it
     * must not block.
     */
    public void onUnknownGroup(LongConsumer listener) {
        this.unknownGroup = listener;
    }

    /** A request named group {@code groupId}, which is not hosted here. */
    public void unknownGroup(long groupId) {
        unknownGroup.accept(groupId);
    }

    /**
     * A message for group {@code groupId}, not hosted here: a vote request ({@code RequestVote},
     * {@code PreVote}) is kept for the group, in case it is hosted soon (see {@link #early}); other
     * messages are dropped, as their senders repeat them.
     */
    void arrivedEarly(long groupId, Message message) {
        if (!(message instanceof Message.RequestVote || message instanceof Message.PreVote)) {
            return;
        }
        long now = System.nanoTime();
        if (!early.containsKey(groupId)) {
            // Lists are replaced, never changed: the newest entry says whether a group's are stale.
            early.values().removeIf(l -> now - l.get(l.size() - 1).arrived() > EARLY_KEEP_NANOS);
            if (early.size() >= EARLY_GROUPS) {
                return;
            }
        }
        early.compute(groupId, (id, kept) -> {
            List<Early> next = new ArrayList<>(kept == null ? 1 : kept.size() + 1);
            if (kept != null) {
                next.addAll(kept.size() < EARLY_PER_GROUP ? kept : kept.subList(1, kept.size()));
            }
            next.add(new Early(now, message));
            return List.copyOf(next);
        });
        if (groups.containsKey(groupId)) {
            deliverEarly(groupId); // hosted meanwhile: its own drain may have run before this was kept
        }
    }

    /** Hands the votes kept for {@code groupId} to its runner (once: whoever removes them delivers them). */
    private void deliverEarly(long groupId) {
        List<Early> kept = early.remove(groupId);
        Hosted h = groups.get(groupId);
        if (kept == null || h == null) {
            return;
        }
        long now = System.nanoTime();
        for (Early e : kept) {
            if (now - e.arrived() <= EARLY_KEEP_NANOS) {
                h.runner().deliver(e.message());
            }
        }
    }

    /** The handler of replication messages from other members ({@link ReplicaMessages#serves}). */
    public ReplicaMessages messages() {
        return messages;
    }

    /** What hosts the groups, as errors name it. */
    String process() {
        return process;
    }

    /**
     * Starts hosting this datanode's replica of a group, from what its journal holds: the block
     * state is first restored from the journal's checkpoint (when it has one), then the replica
     * starts. The journal must report to this host ({@link JournalListener}).
     *
     * @param members  the group's members (this datanode is {@code members.self()})
     * @param store    the replica's block state
     * @param journal  the replica's journal, just opened ({@code PersistentState.initialVoter()} as
     *                 the state of a founding member of a new group)
     * @param campaign true for the member the namenode named first leader of a new group
     * @return the group's runner
     * @throws IllegalStateException when the group is hosted already
     */
    public GroupRunner create(GroupMembers members, GroupStore store, ReplicaJournal journal, boolean campaign) {
        return create(members, store, journal, campaign, null);
    }

    /**
     * Like {@link #create(GroupMembers, GroupStore, ReplicaJournal, boolean)}; checkpoint images
     * other members send are staged in {@code stagingDir} (the group's journal directory), or in
     * direct memory when it is null (memory journals).
     */
    public GroupRunner create(GroupMembers members, GroupStore store, ReplicaJournal journal, boolean campaign,
                              Path stagingDir) {
        return create(members, members.ids(), store, journal, campaign, stagingDir);
    }

    /**
     * Starts hosting a replica (see {@link #create(GroupMembers, GroupStore, ReplicaJournal, boolean)}).
     *
     * @param founders   the members the group was created with, which a replica whose log and
     *                   checkpoint name no configuration is in; empty for a member joining a group
     *                   (a replacement): with an empty journal it starts as {@link Replica#joining}
     * @param stagingDir where images other members send are staged (null: direct memory)
     */
    public GroupRunner create(GroupMembers members, List<Integer> founders, GroupStore store, ReplicaJournal journal,
                              boolean campaign, Path stagingDir) {
        long groupId = members.groupId();
        PersistentState state = journal.recovered();
        if (state.checkpoint().meta().index() > 0) {
            store.restore(state.checkpoint());
        }
        boolean fresh = state.currentTerm() == 0 && state.entries().isEmpty()
                && state.checkpoint().meta().index() == 0;
        long seed = ThreadLocalRandom.current().nextLong();
        Replica replica = founders.isEmpty() && fresh ? Replica.joining(settings.config(), members.self(), seed)
                : new Replica(settings.config(), members.self(), founders, state, seed);
        EventExecutor loop = loops.loopFor(groupId);
        GroupRunner[] self = new GroupRunner[1];
        GroupOutputs outputs = new GroupOutputs() {
            /** Ops the journal pushed back, oldest first; they go before any later op (loop thread only). */
            private final ArrayDeque<DiskOp> held = new ArrayDeque<>();

            @Override
            public void send(long group, Message message) {
                Hosted now = groups.get(groupId);
                messenger.send(now != null ? now.members() : members, message, loop, self[0]::undelivered);
            }

            @Override
            public void persist(long group, DiskOp op) {
                held.add(op);
                drain();
            }

            @Override
            public void onTimer(long group) {
                drain();
            }

            private void drain() {
                while (!held.isEmpty()) {
                    Admission admission = journal.append(held.peek());
                    if (admission == Admission.BUSY) {
                        return;
                    }
                    held.poll();
                    if (admission == Admission.FAILED) {
                        held.clear();
                        self[0].journalFailed(journal.failure());
                        return;
                    }
                }
            }
        };
        GroupRunner runner = new GroupRunner(groupId, replica, members.names(), loop, outputs,
                store, settings.config(), settings.tickNanos(), settings.requestTimeoutNanos(), heldBudget, process);
        self[0] = runner;
        ImageStaging staging = new ImageStaging(groupId, store.imageBytes(), stagingDir,
                stagingBudget);
        if (groups.putIfAbsent(groupId, new Hosted(members, runner, store, journal, staging)) != null) {
            throw new IllegalStateException("group " + groupId + " is hosted here already");
        }
        loops.add(runner);
        if (campaign) {
            runner.campaign();
        }
        if (!early.isEmpty()) {
            deliverEarly(groupId);
        }
        return runner;
    }

    /**
     * The group's members changed (a replacement under way): messages go to {@code members}'
     * addresses from now on. False when the group is not hosted here.
     */
    public boolean updateMembers(GroupMembers members) {
        return groups.computeIfPresent(members.groupId(), (id, h) -> new Hosted(members, h.runner(), h.store(),
                h.journal(), h.staging())) != null;
    }

    /** A hosted group, or null. */
    public Hosted hosted(long groupId) {
        return groups.get(groupId);
    }

    /** The runner of a hosted group, or null. */
    public GroupRunner runner(long groupId) {
        Hosted h = groups.get(groupId);
        return h == null ? null : h.runner();
    }

    @Override
    public void durable(long groupId, long opId) {
        Hosted h = groups.get(groupId);
        if (h != null) {
            h.runner().durable(opId);
        }
    }

    @Override
    public void failed(long groupId, String reason) {
        Hosted h = groups.get(groupId);
        if (h != null) {
            h.runner().journalFailed(reason);
        }
    }

    /** Stops hosting a group: its pending requests fail and its journal closes. */
    public void remove(long groupId) {
        Hosted h = groups.remove(groupId);
        if (h != null) {
            loops.remove(h.runner());
            h.journal().close();
            messenger.transfers().forget(groupId);
            try {
                h.runner().loop().execute(h.staging()::close);
            } catch (RejectedExecutionException e) {
                h.staging().close();
            }
        }
    }

    /** Messages sent to and dropped on the way to other datanodes. */
    public PeerMessenger messenger() {
        return messenger;
    }

    @Override
    public void close() {
        groups.keySet().forEach(this::remove);
        messenger.close();
        loops.close();
    }
}
