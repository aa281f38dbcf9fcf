package io.tarn.replication;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A synchronous harness for unit tests: replicas exchange messages through a FIFO queue the test
 * drains explicitly, disks complete on demand (or automatically), and every effect is recorded so
 * tests can assert on it. No randomness beyond the replicas' seeded timeouts.
 */
final class TestCluster {

    /** A trivial image for checkpoints taken in unit tests. */
    record Image(Map<Long, Long> blocks) implements StateImage {
        @Override
        public long sizeBytes() {
            return blocks.size();
        }
    }

    final ReplicationConfig config;
    /** The founding members; {@link #nodes} also holds replicas that joined later. */
    final List<Integer> members;
    final List<Integer> nodes;
    final Map<Integer, Replica> replicas = new HashMap<>();
    final Map<Integer, List<DiskOp>> pendingDisk = new HashMap<>();
    final Map<Integer, Map<Long, Long>> data = new HashMap<>();
    final Map<Integer, List<Effect>> history = new HashMap<>();
    final ArrayDeque<Message> network = new ArrayDeque<>();
    final List<ClientReply> replies = new ArrayList<>();
    final Set<Integer> down = new HashSet<>();
    /** Replicas cut off from the network: their clocks keep ticking, their messages are lost. */
    final Set<Integer> isolated = new HashSet<>();
    boolean autoDisk = true;
    /** Messages the network loses, for tests that need one specific message to go missing. */
    Predicate<Message> lose = m -> false;

    TestCluster(ReplicationConfig config, int size) {
        this.config = config;
        this.members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(i);
        }
        this.nodes = new ArrayList<>(members);
        for (int id : nodes) {
            start(id, PersistentState.initialVoter());
        }
    }

    void start(int id, PersistentState state) {
        put(id, new Replica(config, id, members, state, 7919L * (id + 1)));
    }

    /** Starts a brand-new replica with an empty disk that will join the group as {@code id}. */
    void join(int id) {
        nodes.add(id);
        put(id, Replica.joining(config, id, 7919L * (id + 1)));
    }

    private void put(int id, Replica replica) {
        replicas.put(id, replica);
        pendingDisk.put(id, new ArrayList<>());
        data.put(id, new HashMap<>());
        history.put(id, new ArrayList<>());
        down.remove(id);
    }

    Replica r(int id) {
        return replicas.get(id);
    }

    /** Collects the effects of every replica into the network, disks and records. */
    void collect() {
        boolean more = true;
        while (more) {
            more = false;
            for (int id : nodes) {
                if (down.contains(id)) {
                    continue;
                }
                List<Effect> effects = replicas.get(id).drainEffects();
                more |= !effects.isEmpty();
                for (Effect e : effects) {
                    perform(id, e);
                }
            }
            if (autoDisk) {
                for (int id : nodes) {
                    more |= completeDisk(id);
                }
            }
        }
    }

    private void perform(int id, Effect e) {
        history.get(id).add(e);
        if (e instanceof Effect.Send s) {
            network.add(s.message());
        } else if (e instanceof Effect.Persist p) {
            pendingDisk.get(id).add(p.op());
        } else if (e instanceof Effect.Apply a) {
            for (long b = a.entry().range().first(); b < a.entry().range().end(); b++) {
                data.get(id).put(b, ValuePayload.of(a.entry().command()));
            }
        } else if (e instanceof Effect.Reply rep) {
            replies.add(rep.reply());
        } else if (e instanceof Effect.CaptureCheckpoint c) {
            replicas.get(id).onCheckpointCaptured(c.meta(), new Image(Map.copyOf(data.get(id))));
        } else if (e instanceof Effect.RestoreCheckpoint rc) {
            data.put(id, new HashMap<>(((Image) rc.checkpoint().image()).blocks()));
        }
    }

    /** Completes every pending disk op of {@code id}; returns whether there were any. */
    boolean completeDisk(int id) {
        List<DiskOp> ops = pendingDisk.get(id);
        if (ops.isEmpty() || down.contains(id)) {
            return false;
        }
        long last = ops.get(ops.size() - 1).id();
        ops.clear();
        replicas.get(id).onDiskComplete(last);
        return true;
    }

    /** Delivers queued messages (and what they trigger) until the network is empty. */
    void deliverAll() {
        collect();
        int guard = 0;
        while (!network.isEmpty()) {
            Message m = network.poll();
            if (!down.contains(m.to()) && !isolated.contains(m.to()) && !isolated.contains(m.from())
                    && !lose.test(m)) {
                replicas.get(m.to()).handle(m);
            }
            collect();
            if (++guard > 100_000) {
                throw new IllegalStateException("message storm");
            }
        }
    }

    /** Ticks every live replica {@code n} times, delivering messages after each tick. */
    void tick(int n) {
        for (int i = 0; i < n; i++) {
            for (int id : nodes) {
                if (!down.contains(id)) {
                    replicas.get(id).tick();
                }
            }
            deliverAll();
        }
    }

    /** Ticks until some replica is an active leader; returns its id. */
    int electLeader() {
        for (int i = 0; i < 2000; i++) {
            tick(1);
            for (int id : nodes) {
                if (!down.contains(id) && replicas.get(id).isActiveLeader()) {
                    return id;
                }
            }
        }
        throw new IllegalStateException("no leader elected");
    }

    /** Submits a write to {@code id} and delivers everything. */
    void write(int id, long client, long seq, long first, int count, long value) {
        WriteCommand command = new WriteCommand(client, seq, seq, new BlockRange(first, count),
                new ValuePayload(value));
        replicas.get(id).submitWrite(new ClientWrite(command));
        deliverAll();
    }

    List<Message> sentBy(int id, Class<? extends Message> type) {
        List<Message> out = new ArrayList<>();
        for (Effect e : history.get(id)) {
            if (e instanceof Effect.Send s && type.isInstance(s.message())) {
                out.add(s.message());
            }
        }
        return out;
    }

    long count(Class<? extends ClientReply> type, Status status) {
        return replies.stream().filter(type::isInstance).filter(r -> r.status() == status).count();
    }
}
