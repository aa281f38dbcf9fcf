package io.tarn.replication.sim;

import io.tarn.replication.Checkpoint;
import io.tarn.replication.ClientReply;
import io.tarn.replication.DiskOp;
import io.tarn.replication.Effect;
import io.tarn.replication.LogEntry;
import io.tarn.replication.Message;
import io.tarn.replication.PersistentState;
import io.tarn.replication.Replica;
import io.tarn.replication.ValuePayload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One simulated datanode hosting one replica: it performs the replica's effects (messages into
 * the simulated network, writes onto the simulated journal, applies onto an in-memory block map)
 * and feeds ticks and completions back. Its incarnation number invalidates events scheduled before
 * a crash.
 */
final class SimNode {

    final int id;
    private final Simulation sim;
    /** Created to join a running group: it has no founding members and starts as a non-voter. */
    private final boolean joining;
    final SimDisk disk;
    private boolean retired;
    private Replica replica;
    private int incarnation;
    private Map<Long, long[]> blocks = new HashMap<>();

    SimNode(int id, Simulation sim, boolean joining) {
        this.id = id;
        this.sim = sim;
        this.joining = joining;
        this.disk = joining ? SimDisk.joining() : new SimDisk();
    }

    /** Removed from the group and shut down for good. */
    boolean retired() {
        return retired;
    }

    void retire() {
        if (isUp()) {
            crash();
        }
        retired = true;
    }

    Replica replica() {
        return replica;
    }

    boolean isUp() {
        return replica != null;
    }

    Map<Long, long[]> blocks() {
        return blocks;
    }

    void start() {
        PersistentState state = disk.snapshot();
        incarnation++;
        List<Integer> founding = joining ? List.of() : sim.memberIds();
        replica = new Replica(sim.config, id, founding, state, sim.random().nextLong());
        blocks = restore(state.checkpoint());
        int inc = incarnation;
        sim.schedule(sim.random().nextLong(sim.tickMicros) + 1, () -> tick(inc));
    }

    private static Map<Long, long[]> restore(Checkpoint checkpoint) {
        return checkpoint.image() == null ? new HashMap<>() : ((SimImage) checkpoint.image()).blocksCopy();
    }

    void crash() {
        if (Simulation.TRACE) {
            Simulation.trace(sim.now(), "node " + id + " CRASH");
        }
        incarnation++;
        replica = null;
        disk.crash(sim.random());
    }

    void wipe() {
        crash();
        disk.wipe();
    }

    private void tick(int inc) {
        if (inc != incarnation) {
            return;
        }
        replica.tick();
        process();
        sim.schedule(sim.tickMicros, () -> tick(inc));
    }

    void deliver(Message message) {
        if (replica != null) {
            if (Simulation.TRACE) {
                Simulation.trace(sim.now(), "node " + id + " <- " + message);
            }
            replica.handle(message);
            process();
        }
    }

    /** The network reports that {@code message}, which this node sent, was not delivered. */
    void sendFailed(Message message) {
        if (replica != null) {
            replica.onSendFailed(message);
            process();
        }
    }

    /** Runs {@code input} against the replica if up, then performs the effects. */
    void input(java.util.function.Consumer<Replica> input) {
        if (replica != null) {
            input.accept(replica);
            process();
        }
    }

    void process() {
        List<Effect> effects = replica.drainEffects();
        while (!effects.isEmpty()) {
            for (Effect effect : effects) {
                perform(effect);
            }
            effects = replica == null ? List.of() : replica.drainEffects();
        }
        sim.afterStep();
    }

    private void perform(Effect effect) {
        if (Simulation.TRACE) {
            Simulation.trace(sim.now(), "node " + id + " " + replica + " -> " + effect);
        }
        if (effect instanceof Effect.Send s) {
            sim.network(s.message());
        } else if (effect instanceof Effect.Persist p) {
            persist(p.op());
        } else if (effect instanceof Effect.Apply a) {
            apply(a.entry());
        } else if (effect instanceof Effect.Reply r) {
            reply(r.reply());
        } else if (effect instanceof Effect.CaptureCheckpoint c) {
            replica.onCheckpointCaptured(c.meta(), new SimImage(blocks));
        } else if (effect instanceof Effect.RestoreCheckpoint r) {
            blocks = restore(r.checkpoint());
        } else if (effect instanceof Effect.RoleChanged rc) {
            sim.invariants().onRoleChanged(id, rc.role(), rc.term());
        } else if (effect instanceof Effect.MembershipChanged mc) {
            sim.invariants().onMembershipChanged(id, mc.members(), mc.index());
        }
    }

    private void apply(LogEntry entry) {
        sim.invariants().onCommitted(id, entry);
        for (long b = entry.range().first(); b < entry.range().end(); b++) {
            long[] current = blocks.get(b);
            if (current != null && current[1] >= entry.index()) {
                throw new InvariantViolation("node " + id + " applied entry " + entry.index() + " to block " + b
                        + " after entry " + current[1] + ": conflicting writes out of log order");
            }
            blocks.put(b, new long[] {ValuePayload.of(entry.command()), entry.index()});
        }
    }

    private void reply(ClientReply reply) {
        long[] observed = null;
        if (reply instanceof ClientReply.ReadReply rr && rr.status() == io.tarn.replication.Status.OK) {
            observed = new long[rr.range().count()];
            for (int k = 0; k < observed.length; k++) {
                long[] v = blocks.get(rr.range().first() + k);
                observed[k] = v == null ? 0 : v[0];
            }
        }
        sim.clientReply(reply, observed);
    }

    private void persist(DiskOp op) {
        disk.queued.add(op);
        if (disk.flushing == null) {
            startFlush();
        }
    }

    private void startFlush() {
        disk.flushing = new ArrayList<>(disk.queued);
        disk.queued.clear();
        int inc = incarnation;
        long bytes = 0;
        for (DiskOp op : disk.flushing) {
            bytes += sim.bytesOf(op);
        }
        sim.schedule(sim.diskLatency() + sim.options.bytes().diskMicros(bytes), () -> completeFlush(inc));
    }

    private void completeFlush(int inc) {
        if (inc != incarnation) {
            return;
        }
        List<DiskOp> done = disk.flushing;
        done.forEach(disk::apply);
        disk.flushing = null;
        if (!disk.queued.isEmpty()) {
            startFlush();
        }
        replica.onDiskComplete(done.get(done.size() - 1).id());
        process();
    }
}
