package io.tarn.datanode.replication;

import io.tarn.replication.DiskOp;
import io.tarn.replication.Message;
import io.tarn.replication.PersistentState;
import io.tarn.replication.Replica;
import io.tarn.replication.ReplicationConfig;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.Transport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The block groups one datanode hosts: for each, a {@link GroupRunner} on one of the host's
 * {@link ReplicationLoops}, wired to the other members through the shared {@link PeerMessenger}
 * and to the group's journal. {@link #service()} is the handler for the {@code REPLICA} audience of
 * the datanode's RPC server.
 *
 * <p>Thread-safe: groups are created and removed from any thread; lookups are lock-free.
 */
public final class ReplicationHost implements AutoCloseable {

    /**
     * The host's settings.
     *
     * @param config              every group's protocol settings, in ticks
     * @param tickNanos           the length of one tick
     * @param requestTimeoutNanos how long a client request waits for its group
     * @param threads             replication loops
     */
    public record Settings(ReplicationConfig config, long tickNanos, long requestTimeoutNanos, int threads) {
    }

    /**
     * Makes a group's disk operations durable: appends {@code op} to group {@code groupId}'s
     * journal without blocking, and later calls {@link ReplicationHost#durable} once it and every
     * earlier op of that group are durable. Ops of one group complete in issue order.
     */
    public interface Journal {
        void append(long groupId, DiskOp op);
    }

    private record Hosted(GroupMembers members, GroupRunner runner) {
    }

    private final Settings settings;
    private final Journal journal;
    private final ReplicationLoops loops;
    private final PeerMessenger messenger;
    private final ReplicaService service;
    private final ConcurrentHashMap<Long, Hosted> groups = new ConcurrentHashMap<>();

    /**
     * @param transport the datanode's transport, for connections to other members
     * @param settings  the host's settings
     * @param journal   where groups' disk operations go
     * @param name      thread name prefix
     */
    public ReplicationHost(Transport transport, Settings settings, Journal journal, String name) {
        this.settings = settings;
        this.journal = journal;
        this.loops = new ReplicationLoops(settings.threads(), settings.tickNanos(), name);
        ReplicationCodec codec = new ReplicationCodec(RegionGroupStore.CODEC);
        this.messenger = new PeerMessenger(transport, codec);
        this.service = new ReplicaService(this, codec);
    }

    /** The handler of replication messages from other datanodes. */
    public RpcHandler service() {
        return service;
    }

    /**
     * Starts hosting this datanode's replica of a group.
     *
     * @param members  the group's members (this datanode is {@code members.self()})
     * @param store    the replica's block state
     * @param state    what the replica's journal holds ({@link PersistentState#initialVoter()} for a
     *                 founding member of a new group)
     * @param campaign true for the member the namenode named first leader of a new group
     * @return the group's runner
     * @throws IllegalStateException when the group is hosted already
     */
    public GroupRunner create(GroupMembers members, GroupStore store, PersistentState state, boolean campaign) {
        long groupId = members.groupId();
        Replica replica = new Replica(settings.config(), members.self(), members.ids(), state,
                ThreadLocalRandom.current().nextLong());
        GroupOutputs outputs = new GroupOutputs() {
            @Override
            public void send(long group, Message message) {
                messenger.send(members, message);
            }

            @Override
            public void persist(long group, DiskOp op) {
                journal.append(group, op);
            }
        };
        GroupRunner runner = new GroupRunner(groupId, replica, members.names(), loops.loopFor(groupId), outputs,
                store, settings.config(), settings.tickNanos(), settings.requestTimeoutNanos());
        if (groups.putIfAbsent(groupId, new Hosted(members, runner)) != null) {
            throw new IllegalStateException("group " + groupId + " is hosted here already");
        }
        loops.add(runner);
        if (campaign) {
            runner.campaign();
        }
        return runner;
    }

    /** The runner of a hosted group, or null. */
    public GroupRunner runner(long groupId) {
        Hosted h = groups.get(groupId);
        return h == null ? null : h.runner();
    }

    /** The journal completed every operation of {@code groupId} up to {@code opId}. */
    public void durable(long groupId, long opId) {
        Hosted h = groups.get(groupId);
        if (h != null) {
            h.runner().durable(opId);
        }
    }

    /** Stops hosting a group; its pending requests fail. */
    public void remove(long groupId) {
        Hosted h = groups.remove(groupId);
        if (h != null) {
            loops.remove(h.runner());
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
