package io.tarn.replication.sim;

import io.tarn.replication.BlockRange;
import io.tarn.replication.ClientRead;
import io.tarn.replication.ClientReply;
import io.tarn.replication.ClientWrite;
import io.tarn.replication.Status;
import io.tarn.replication.ValuePayload;
import io.tarn.replication.WriteCommand;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * A closed-loop simulated client keeping up to {@code depth} operations in flight. Writes are
 * retried with the same sequence number until acknowledged (at-most-once is the replicas' job);
 * reads are retried until served. Every operation is recorded in the {@link History}. A client
 * may crash: it then abandons what it had in flight and returns under a new id.
 */
final class SimClient {

    long id;
    private final Simulation sim;
    private final int depth;
    private final Map<Long, Pending> inFlight = new HashMap<>();
    private final TreeSet<Long> unackedSeqs = new TreeSet<>();
    private long nextSeq = 1;
    private long nextReadId = 1;
    private int leaderGuess;
    private boolean issuing = true;
    final LatencyRecorder latencies = new LatencyRecorder();

    private static final class Pending {
        final History.Op op;
        final long key;
        final boolean write;
        int attempts;
        int attemptTag;

        Pending(History.Op op, long key, boolean write) {
            this.op = op;
            this.key = key;
            this.write = write;
        }
    }

    SimClient(long id, Simulation sim, int depth) {
        this.id = id;
        this.sim = sim;
        this.depth = depth;
        this.leaderGuess = sim.memberIds().get(0);
    }

    /**
     * The client process dies and comes back as a new client (new id, new session): operations in
     * flight stay pending in the history, so their writes may or may not take effect, and nobody
     * retries them.
     */
    void crash(long newId, long restartDelayMicros) {
        inFlight.clear();
        unackedSeqs.clear();
        nextSeq = 1;
        id = newId;
        sim.schedule(restartDelayMicros, this::fill);
    }

    void stopIssuing() {
        issuing = false;
    }

    boolean idle() {
        return inFlight.isEmpty();
    }

    void fill() {
        while (issuing && inFlight.size() < depth) {
            issue();
        }
    }

    private void issue() {
        BlockRange range = sim.randomRange();
        boolean write = sim.random().nextDouble() < sim.options.writeFraction();
        Pending p;
        if (write) {
            long seq = nextSeq++;
            unackedSeqs.add(seq);
            p = new Pending(sim.history().invokeWrite(range.first(), range.count(), sim.nextValue(), sim.now()),
                    seq, true);
        } else {
            p = new Pending(sim.history().invokeRead(range.first(), range.count(), sim.now()), -(nextReadId++), false);
        }
        inFlight.put(p.key, p);
        send(p);
    }

    private void send(Pending p) {
        p.attempts++;
        int tag = ++p.attemptTag;
        int target = leaderGuess;
        History.Op op = p.op;
        BlockRange range = new BlockRange(op.first, op.count);
        if (p.write) {
            WriteCommand command = new WriteCommand(id, p.key, unackedSeqs.first(), range, new ValuePayload(op.value,
                    sim.options.bytes().payload()));
            sim.clientRequest(target, r -> r.submitWrite(new ClientWrite(command)));
        } else {
            sim.clientRequest(target, r -> r.submitRead(new ClientRead(id, -p.key, range)));
        }
        sim.schedule(sim.options.clientTimeoutMicros(), () -> timeout(p, tag));
    }

    private void timeout(Pending p, int tag) {
        if (inFlight.get(p.key) == p && p.attemptTag == tag) {
            leaderGuess = sim.randomMember();
            send(p);
        }
    }

    void onReply(ClientReply reply, long[] observed) {
        if (reply.clientId() != id) {
            // Meant for this client's previous incarnation (it crashed while the reply was in flight).
            return;
        }
        long key = reply instanceof ClientReply.WriteReply w ? w.sequence() : -((ClientReply.ReadReply) reply).readId();
        Pending p = inFlight.get(key);
        if (p == null) {
            return;
        }
        if (reply.status() == Status.OK) {
            complete(p, observed);
            return;
        }
        leaderGuess = reply.leaderHint() >= 0 ? reply.leaderHint() : sim.randomMember();
        int tag = ++p.attemptTag;
        sim.schedule(sim.options.clientBackoffMicros(), () -> {
            if (inFlight.get(p.key) == p && p.attemptTag == tag) {
                send(p);
            }
        });
    }

    private void complete(Pending p, long[] observed) {
        inFlight.remove(p.key);
        p.op.response = sim.now();
        if (p.write) {
            unackedSeqs.remove(p.key);
        } else {
            p.op.observed = observed;
        }
        latencies.record(p.op.response - p.op.invoke);
        fill();
    }
}
