package io.tarn.replication.sim;

import io.tarn.replication.BlockRange;
import io.tarn.replication.ClientReply;
import io.tarn.replication.DiskOp;
import io.tarn.replication.LogEntry;
import io.tarn.replication.Message;
import io.tarn.replication.Replica;
import io.tarn.replication.ReplicationConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * A deterministic simulation of one block group: one seeded random source drives a discrete-event
 * scheduler over simulated time, a network that drops, duplicates, delays (hence reorders) and
 * partitions, journals that lose unflushed writes on a crash, crashes, disk wipes and leader
 * transfers. Invariants are checked after every step; a run ends with a fault-free phase in which
 * the group must converge, then the quiescence invariants and the linearizability of the client
 * history are checked. The same seed always replays the same run.
 */
final class Simulation {

    private record Event(long time, long order, Runnable action) {
    }

    /** {@code -Dtarn.sim.trace=true} prints every event of a run: use it with a single replayed seed. */
    static final boolean TRACE = Boolean.getBoolean("tarn.sim.trace");
    private static final long FIRST_CLIENT_ID = 1000;
    /** Client ids are FIRST_CLIENT_ID + slot + k * stride, k counting the slot's crashes. */
    private static final long CLIENT_ID_STRIDE = 64;
    private static final long MESSAGE_HEADER_BYTES = 64;

    final SimOptions options;
    final ReplicationConfig config;
    final long tickMicros;
    final long seed;
    private final SplittableRandom random;
    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) ->
            a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.order, b.order));
    private final List<SimNode> nodes = new ArrayList<>();
    private final List<SimClient> clients = new ArrayList<>();
    private final List<Integer> memberIds = new ArrayList<>();
    private final History history = new History();
    private final InvariantChecker invariants;
    private final Set<Integer> isolated = new HashSet<>();
    private long now;
    private long order;
    private long nextValue = 1;
    private long steps;
    private boolean chaos;
    private final Map<Long, Double> linkDrop = new HashMap<>();
    /** Per directed link and lane, when the last queued message has left (only with a link bandwidth). */
    private final Map<Long, Long> linkFreeAt = new HashMap<>();
    private long maxLinkWait;
    private long linkBytes;
    private final Nemesis nemesis;
    private double dropP;
    private double dupP;
    private boolean checkEverySteps = true;

    Simulation(SimOptions options, long seed) {
        this.options = options;
        this.config = options.config();
        this.tickMicros = options.tickMicros();
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        for (int i = 0; i < options.nodes(); i++) {
            memberIds.add(i);
        }
        this.invariants = new InvariantChecker(config.window(), memberIds);
        this.nemesis = new Nemesis(this);
        for (int i = 0; i < options.nodes(); i++) {
            nodes.add(new SimNode(i, this, false));
        }
        for (int c = 0; c < options.clients(); c++) {
            clients.add(new SimClient(FIRST_CLIENT_ID + c, this, options.clientDepth()));
        }
    }

    // ---------------------------------------------------------------- run

    /** Runs the whole scenario; throws {@link InvariantViolation} on any failure. */
    RunStats run() {
        startAll();
        chaos = options.faults();
        if (chaos) {
            nemesis.start();
        }
        runUntil(options.chaosMicros());
        heal();
        clients.forEach(SimClient::stopIssuing);
        long deadline = now + options.quiesceMicros();
        while (now < deadline && !converged()) {
            runUntil(now + 5_000);
        }
        if (!converged()) {
            throw new InvariantViolation("group did not converge within " + options.quiesceMicros()
                    + "us after healing: " + describe());
        }
        List<SimNode> members = memberNodes();
        for (SimNode node : members) {
            node.replica().drainEffects();
        }
        invariants.atQuiescence(members);
        String lin = new LinearizabilityChecker(2_000_000).check(history.ops());
        if (lin != null) {
            throw new InvariantViolation(lin);
        }
        return stats();
    }

    void startAll() {
        for (SimNode node : nodes) {
            node.start();
        }
        for (SimClient client : clients) {
            schedule(1 + random.nextLong(1_000), client::fill);
        }
    }

    void runUntil(long time) {
        while (!queue.isEmpty() && queue.peek().time() <= time) {
            Event e = queue.poll();
            now = e.time();
            steps++;
            e.action().run();
        }
        now = Math.max(now, time);
    }

    long completedOps() {
        return history.ops().stream().filter(op -> op.response != History.PENDING).count();
    }

    /** The nodes of the latest committed configuration. */
    private List<SimNode> memberNodes() {
        List<SimNode> out = new ArrayList<>();
        for (int id : invariants.committedMembers()) {
            out.add(nodes.get(id));
        }
        return out;
    }

    private boolean converged() {
        for (SimClient c : clients) {
            if (!c.idle()) {
                return false;
            }
        }
        if (!nemesis.membershipIdle()) {
            return false;
        }
        Replica leader = null;
        List<SimNode> members = memberNodes();
        for (SimNode n : members) {
            Replica r = n.replica();
            if (r == null || !r.isVoter() || !r.members().equals(invariants.committedMembers())) {
                return false;
            }
            if (r.isActiveLeader()) {
                leader = r;
            }
        }
        if (leader == null) {
            return false;
        }
        for (SimNode n : members) {
            Replica r = n.replica();
            if (r.lastIndex() != leader.lastIndex() || r.appliedPrefix() != leader.lastIndex()
                    || r.commitPrefix() != leader.lastIndex()) {
                return false;
            }
        }
        return true;
    }

    private String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append("members ").append(invariants.committedMembers()).append(": ");
        for (SimNode n : nodes) {
            sb.append(n.replica() == null ? "node " + n.id + (n.retired() ? " retired" : " down")
                    : n.replica().toString() + " members=" + n.replica().members()
                    + (n.replica().isVoter() ? "" : " non-voter")).append("; ");
        }
        long busy = clients.stream().filter(c -> !c.idle()).count();
        return sb.append(busy).append(" clients busy").toString();
    }

    static void trace(long now, String what) {
        System.out.println(now + " " + what);
    }

    // ---------------------------------------------------------------- services for the nemesis

    boolean inChaos() {
        return chaos;
    }

    Set<Integer> isolated() {
        return isolated;
    }

    void setDropRates(double drop, double duplicate) {
        dropP = drop;
        dupP = duplicate;
    }

    /** Sets the extra loss rate of the directed link {@code from -> to} (0 removes it). */
    void setLinkDrop(int from, int to, double p) {
        long key = ((long) from << 32) | to;
        if (p <= 0) {
            linkDrop.remove(key);
        } else {
            linkDrop.put(key, p);
        }
    }

    /** Nodes that may be down or cut off at once while the rest still forms a quorum. */
    int maxFaulty() {
        return (liveIds().size() - 1) / 2;
    }

    /** Ids of the nodes not retired (members, joining ones, and removed ones not yet shut down). */
    List<Integer> liveIds() {
        List<Integer> out = new ArrayList<>();
        for (SimNode n : nodes) {
            if (!n.retired()) {
                out.add(n.id);
            }
        }
        return out;
    }

    SimNode randomNode() {
        List<Integer> live = liveIds();
        return nodes.get(live.get(random.nextInt(live.size())));
    }

    /** Starts a new node with an empty disk that will join the group; returns its id. */
    int addNode() {
        SimNode node = new SimNode(nodes.size(), this, true);
        nodes.add(node);
        node.start();
        return node.id;
    }

    SimNode node(int id) {
        return nodes.get(id);
    }

    /** The active leader of the highest term that is not cut off, or null. */
    SimNode activeLeader() {
        SimNode best = null;
        for (SimNode n : nodes) {
            if (n.isUp() && n.replica().isActiveLeader() && !isolated.contains(n.id)
                    && (best == null || n.replica().currentTerm() > best.replica().currentTerm())) {
                best = n;
            }
        }
        return best;
    }

    /** Crashes a random client; it returns under a new id after {@code delay}. */
    void crashClient(long delay) {
        SimClient client = clients.get(random.nextInt(clients.size()));
        client.crash(client.id + CLIENT_ID_STRIDE, delay);
    }

    void restart(SimNode node) {
        if (!node.isUp() && !node.retired()) {
            node.start();
        }
    }

    private void heal() {
        chaos = false;
        isolated.clear();
        linkDrop.clear();
        dropP = 0;
        dupP = 0;
        for (SimNode node : nodes) {
            restart(node);
        }
    }

    // ---------------------------------------------------------------- network and clients

    void network(Message message) {
        linkBytes += bytesOf(message);
        if (blocked(message.from(), message.to()) || random.nextDouble() < dropP || lossy(message)) {
            reportLoss(message);
            return;
        }
        deliverLater(message);
        if (random.nextDouble() < dupP) {
            deliverLater(message);
        }
    }

    private boolean lossy(Message message) {
        Double p = linkDrop.get(((long) message.from() << 32) | message.to());
        return p != null && random.nextDouble() < p;
    }

    private void deliverLater(Message message) {
        long delay = options.network().sampleMicros(random);
        long onLink = options.bytes().linkMicros(bytesOf(message));
        if (onLink > 0) {
            // The message waits for the ones queued before it on its connection. As between two
            // datanodes, each directed link has two: one for entries and images, one for the rest.
            long key = ((long) message.from() << 32) | ((long) message.to() << 1) | (message.carriesData() ? 1 : 0);
            long start = Math.max(now, linkFreeAt.getOrDefault(key, 0L));
            linkFreeAt.put(key, start + onLink);
            maxLinkWait = Math.max(maxLinkWait, start - now);
            delay += start + onLink - now;
        }
        schedule(delay, () -> {
            SimNode to = nodes.get(message.to());
            if (!blocked(message.from(), message.to()) && to.isUp()) {
                to.deliver(message);
            } else {
                reportLoss(message);
            }
        });
    }

    /**
     * Over reliable links ({@link io.tarn.replication.ReplicationConfig#reliableLinks()}), as a TCP
     * connection that breaks or is refused: the sender learns of the lost message a network delay
     * later. A message a node received and lost by crashing before it was durable is not reported,
     * as over TCP.
     */
    private void reportLoss(Message message) {
        if (options.config().reliableLinks()) {
            schedule(options.network().sampleMicros(random), () -> nodes.get(message.from()).sendFailed(message));
        }
    }

    /** The size of a message on the wire: a fixed header plus the payloads it carries. */
    long bytesOf(Message message) {
        long size = MESSAGE_HEADER_BYTES;
        if (message instanceof Message.Append a) {
            size += payloadBytes(a.entries());
        } else if (message instanceof Message.Sync s) {
            size += payloadBytes(s.entries());
        } else if (message instanceof Message.InstallCheckpoint c && c.image() instanceof SimImage image) {
            size += (long) image.blockCount() * options.bytes().payload();
        }
        return size;
    }

    /** The bytes a journal operation writes: the payloads of the entries it carries. */
    long bytesOf(DiskOp op) {
        if (op instanceof DiskOp.PersistEntries e) {
            return payloadBytes(e.entries());
        }
        return op instanceof DiskOp.PersistSync s ? payloadBytes(s.entries()) : 0;
    }

    private static long payloadBytes(List<LogEntry> entries) {
        long size = 0;
        for (LogEntry e : entries) {
            size += e.isNoop() ? 0 : e.command().payload().length();
        }
        return size;
    }

    private boolean blocked(int from, int to) {
        return isolated.contains(from) || isolated.contains(to);
    }

    void clientRequest(int target, Consumer<Replica> request) {
        if (random.nextDouble() < dropP) {
            return;
        }
        schedule(options.clientNetwork().sampleMicros(random), () -> nodes.get(target).input(request));
    }

    void clientReply(ClientReply reply, long[] observed) {
        if (random.nextDouble() < dropP) {
            return;
        }
        SimClient client = clients.get((int) ((reply.clientId() - FIRST_CLIENT_ID) % CLIENT_ID_STRIDE));
        if (client.id != reply.clientId()) {
            return;
        }
        schedule(options.clientNetwork().sampleMicros(random), () -> client.onReply(reply, observed));
    }

    void afterStep() {
        if (checkEverySteps) {
            invariants.afterStep(nodes);
        }
    }

    /** Benchmarks turn the per-step scan off; apply-order and leader-per-term checks stay on. */
    void disablePerStepScan() {
        checkEverySteps = false;
    }

    // ---------------------------------------------------------------- services for nodes and clients

    void schedule(long delay, Runnable action) {
        queue.add(new Event(now + Math.max(0, delay), order++, action));
    }

    long now() {
        return now;
    }

    SplittableRandom random() {
        return random;
    }

    List<Integer> memberIds() {
        return memberIds;
    }

    int randomMember() {
        List<Integer> live = liveIds();
        return live.get(random.nextInt(live.size()));
    }

    long diskLatency() {
        return options.disk().sampleMicros(random);
    }

    long nextValue() {
        return nextValue++;
    }

    BlockRange randomRange() {
        int count = 1 + random.nextInt(options.maxRangeBlocks());
        long first = random.nextLong(options.blocks() - count + 1);
        return new BlockRange(first, count);
    }

    History history() {
        return history;
    }

    InvariantChecker invariants() {
        return invariants;
    }

    List<SimClient> clients() {
        return clients;
    }

    List<SimNode> nodes() {
        return nodes;
    }

    RunStats stats() {
        long completed = history.ops().stream().filter(op -> op.response != History.PENDING).count();
        return new RunStats(steps, invariants.leadersElected(), invariants.committedCount(), completed,
                nemesis.crashes(), nemesis.transfers(), nemesis.strikes(), invariants.membershipChanges(), linkBytes,
                maxLinkWait);
    }

    /**
     * What a run did, for reports and for tests asserting the run was not vacuous.
     *
     * @param steps           events processed
     * @param leaders         terms that elected a leader
     * @param committed       distinct committed indices observed
     * @param completedOps    client operations that completed
     * @param crashes         crashes injected
     * @param transfers       leadership transfers requested
     * @param strikes         targeted faults that hit a leader change's fragile moment
     * @param memberChanges   membership changes committed
     * @param sentBytes       bytes of every message replicas sent (see {@link #bytesOf(Message)})
     * @param maxLinkWait     longest a message waited for the messages queued before it on its link
     */
    record RunStats(long steps, int leaders, long committed, long completedOps, int crashes, int transfers,
                    int strikes, int memberChanges, long sentBytes, long maxLinkWait) {
    }
}
