package io.tarn.replication.sim;

import io.tarn.replication.LogEntry;
import io.tarn.replication.Replica;
import io.tarn.replication.Role;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The fault generator of one run: random, seeded, and dense. Besides blind faults (crash any node,
 * partition any node, drop and duplicate rates, leadership transfers, one disk wipe) it has faults
 * aimed at the moments a leader change is fragile, chosen by looking at the replicas' state:
 * <ul>
 *   <li>crash a node while its journal flush is under way, so it loses an unacknowledged suffix;</li>
 *   <li>crash or isolate a leader (or candidate) during its merge or sync stage;</li>
 *   <li>isolate the leader while it has entries in flight, so only part of the group holds them
 *       and the rest elects a competing leader;</li>
 *   <li>make one directed link lossy, so a follower holds a later entry but misses an earlier one;</li>
 *   <li>arm a watcher that, when a follower holds a hole below an entry the leader knows is
 *       committed, cuts the leader off (crash or lone partition) and heals every other node: the
 *       next election then runs with a replica holding a hole, typically helped by a replica that
 *       rejoins from an older term.</li>
 * </ul>
 * The last three together make the pattern that exposes the PolarFS paper's merge (see
 * {@code docs/replication.md}). With replacements enabled, it also replaces a random member (dead
 * or alive, the leader included) by a new node with an empty disk: it asks the leader to remove
 * the member, shuts the member down once the removal commits, starts the new node and asks the
 * leader to add it, retrying through leader changes until the addition commits. Every choice
 * comes from the simulation's random source, so a seed replays exactly.
 */
final class Nemesis {

    private static final long WATCH_POLL_MICROS = 300;
    /** Watch mode that is always on while armed: see {@link #dangerousHole}. */
    private static final int APPLIED_PAST_STALE = 3;

    private final Simulation sim;
    private final SplittableRandom random;
    private boolean wipedOnce;
    private int crashes;
    private int transfers;
    private int strikes;
    private long watchUntil = -1;
    private int removing = -1;
    private int adding = -1;
    private int watchMode;

    Nemesis(Simulation sim) {
        this.sim = sim;
        this.random = sim.random();
    }

    int crashes() {
        return crashes;
    }

    int transfers() {
        return transfers;
    }

    int strikes() {
        return strikes;
    }

    /** Starts the fault schedule; faults stop once the simulation leaves its chaos phase. */
    void start() {
        sim.setDropRates(random.nextDouble() * 0.15, random.nextDouble() * 0.05);
        scheduleNext();
    }

    private void scheduleNext() {
        sim.schedule(2_000 + random.nextLong(sim.options.faultGapMicros()), () -> {
            if (sim.inChaos()) {
                inject();
                scheduleNext();
            }
        });
    }

    private void inject() {
        int kind = random.nextInt(100);
        if (kind < 14) {
            crash(sim.randomNode(), false);
        } else if (kind < 22) {
            crashMidFlush();
        } else if (kind < 30) {
            strikeMergeStage();
        } else if (kind < 40) {
            isolateLeaderInFlight();
        } else if (kind < 52) {
            lossyLink();
        } else if (kind < 64) {
            armHoleWatcher();
        } else if (kind < 67) {
            wipe();
        } else if (kind < 77) {
            isolate(sim.randomNode(), false);
        } else if (kind < 80) {
            sim.isolated().clear();
        } else if (kind < 84) {
            crashClientSoon();
        } else if (kind < 89) {
            transfer();
        } else if (kind < 92) {
            if (sim.options.replacements()) {
                replaceMember();
            }
        } else {
            sim.setDropRates(random.nextDouble() * 0.2, random.nextDouble() * 0.05);
        }
    }

    // ---------------------------------------------------------------- blind faults

    private long unavailable() {
        return sim.nodes().stream().filter(n -> !n.isUp()).count() + sim.isolated().size();
    }

    /** Crashes {@code node}; unless forced, only while a majority stays up and connected. */
    private void crash(SimNode node, boolean force) {
        crash(node, force, 2_000 + random.nextLong(30_000));
    }

    private void crash(SimNode node, boolean force, long downMicros) {
        if (node == null || !node.isUp() || (!force && unavailable() >= sim.maxFaulty())) {
            return;
        }
        crashes++;
        node.crash();
        sim.schedule(downMicros, () -> sim.restart(node));
    }

    private void isolate(SimNode node, boolean force) {
        isolate(node, force, 3_000 + random.nextLong(40_000));
    }

    private void isolate(SimNode node, boolean force, long micros) {
        if (node == null || (!force && unavailable() >= sim.maxFaulty() && random.nextInt(4) != 0)) {
            return;
        }
        int victim = node.id;
        sim.isolated().add(victim);
        sim.schedule(micros, () -> sim.isolated().remove(victim));
    }

    private void wipe() {
        SimNode node = sim.randomNode();
        boolean degraded = sim.nodes().stream()
                .anyMatch(n -> !n.retired() && (!n.isUp() || !n.replica().isVoter()));
        if (wipedOnce || !membershipIdle() || degraded) {
            return;
        }
        wipedOnce = true;
        crashes++;
        node.wipe();
        sim.schedule(2_000 + random.nextLong(20_000), () -> sim.restart(node));
    }

    private void crashClientSoon() {
        sim.schedule(random.nextLong(8_000), () -> sim.crashClient(1_000 + random.nextLong(10_000)));
    }

    private void transfer() {
        SimNode leader = sim.activeLeader();
        if (leader != null) {
            transfers++;
            int target = sim.randomMember();
            leader.input(r -> r.transferLeadership(target));
        }
    }

    // ---------------------------------------------------------------- targeted faults

    /** Loses the flush under way (all or a prefix) of a node that has one, preferably the leader. */
    private void crashMidFlush() {
        SimNode leader = sim.activeLeader();
        if (leader != null && leader.disk.flushing != null && random.nextBoolean()) {
            crash(leader, random.nextBoolean());
            return;
        }
        for (SimNode n : sim.nodes()) {
            if (n.isUp() && n.disk.flushing != null) {
                crash(n, false);
                return;
            }
        }
    }

    /** Crashes or isolates a candidate or a leader that has not finished its sync stage. */
    private void strikeMergeStage() {
        for (SimNode n : sim.nodes()) {
            Replica r = n.replica();
            if (r != null && (r.role() == Role.CANDIDATE
                    || (r.role() == Role.LEADER && !r.isActiveLeader()))) {
                strikes++;
                if (random.nextBoolean()) {
                    crash(n, true);
                } else {
                    isolate(n, true);
                }
                return;
            }
        }
        armHoleWatcher();
    }

    /**
     * Cuts the leader off, for long enough that the others elect a new leader, while some of its
     * entries are not committed yet; then watches the new leader's followers for holes.
     */
    private void isolateLeaderInFlight() {
        SimNode leader = sim.activeLeader();
        if (leader != null && leader.replica().lastIndex() > leader.replica().commitPrefix()) {
            strikes++;
            long micros = 30_000 + random.nextLong(100_000);
            isolate(leader, true, micros);
            armHoleWatcher(micros);
            lossyLink(micros);
            for (int c = 0; c < sim.clients().size(); c++) {
                if (random.nextBoolean()) {
                    crashClientSoon();
                }
            }
        }
    }

    /** One directed link loses most of its messages for a while. */
    private void lossyLink() {
        lossyLink(3_000 + random.nextLong(30_000));
    }

    private void lossyLink(long micros) {
        List<Integer> connected = sim.liveIds().stream().filter(id -> !sim.isolated().contains(id)).toList();
        if (connected.size() < 2) {
            return;
        }
        int from = connected.get(random.nextInt(connected.size()));
        int to = connected.get(random.nextInt(connected.size()));
        if (from != to) {
            double p = 0.3 + random.nextDouble() * 0.6;
            sim.setLinkDrop(from, to, p);
            sim.schedule(micros, () -> sim.setLinkDrop(from, to, 0));
        }
    }

    // ---------------------------------------------------------------- member replacement

    /** No replacement is under way. */
    boolean membershipIdle() {
        return removing < 0 && adding < 0;
    }

    private void replaceMember() {
        if (!membershipIdle()) {
            return;
        }
        List<Integer> members = sim.invariants().committedMembers();
        int victim = members.get(random.nextInt(members.size()));
        // The group passes through two members, which tolerate no disk loss: start only when every
        // other member is up and a voter (the victim may be down: replacing a dead node).
        for (int id : members) {
            SimNode n = sim.node(id);
            if (id != victim && (!n.isUp() || !n.replica().isVoter())) {
                return;
            }
        }
        removing = victim;
        driveMembership();
    }

    /** Pushes the replacement one step; runs until it is done, after the chaos phase too. */
    private void driveMembership() {
        List<Integer> committed = sim.invariants().committedMembers();
        if (removing >= 0 && !committed.contains(removing)) {
            sim.node(removing).retire();
            removing = -1;
            adding = sim.addNode();
        }
        SimNode joiner = adding >= 0 ? sim.node(adding) : null;
        if (joiner != null && committed.contains(adding) && joiner.isUp() && joiner.replica().isVoter()) {
            adding = -1;
            return;
        }
        SimNode leader = sim.activeLeader();
        if (leader != null && leader.replica().members().equals(committed)) {
            if (removing >= 0) {
                int victim = removing;
                leader.input(r -> r.removeMember(victim));
            } else if (!committed.contains(adding)) {
                int id = adding;
                leader.input(r -> r.addMember(id));
            }
        }
        sim.schedule(1_000 + random.nextLong(3_000), this::driveMembership);
    }

    private void armHoleWatcher() {
        armHoleWatcher(5_000 + random.nextLong(40_000));
    }

    private void armHoleWatcher(long micros) {
        boolean idle = watchUntil < sim.now();
        watchMode = random.nextInt(3);
        watchUntil = Math.max(watchUntil, sim.now() + micros);
        if (idle) {
            sim.schedule(WATCH_POLL_MICROS, this::pollHole);
        }
    }

    private void pollHole() {
        if (!sim.inChaos() || sim.now() > watchUntil) {
            return;
        }
        SimNode leader = sim.activeLeader();
        if (leader != null && someFollowerHasHoleBelowCommitted(leader)) {
            watchUntil = -1;
            strikes++;
            sim.isolated().clear();
            if (random.nextInt(4) == 0) {
                crash(leader, true, 40_000 + random.nextLong(120_000));
            } else {
                isolate(leader, true, 40_000 + random.nextLong(120_000));
            }
            return;
        }
        sim.schedule(WATCH_POLL_MICROS, this::pollHole);
    }

    /**
     * Whether a connected follower misses an entry below one that is committed (known so by the
     * leader or, in watch mode 1, by the follower itself). In modes 2 and 3 the hole must also sit
     * where a cut-off replica still holds an entry of an older term, one that could be fed into
     * the next merge; in mode 3 the follower must moreover have applied a successor within the
     * look-behind distance that this stale entry overlaps (it applied it relying on the
     * successor's look-behind buffer, which recorded a different entry in the hole). Modes 0 to 2
     * are drawn each time the watcher is armed; mode 3 is checked whenever it is armed.
     */
    private boolean someFollowerHasHoleBelowCommitted(SimNode leaderNode) {
        Replica leader = leaderNode.replica();
        for (SimNode n : sim.nodes()) {
            Replica r = n.replica();
            if (n == leaderNode || r == null || sim.isolated().contains(n.id)) {
                continue;
            }
            for (long i = Math.max(r.commitPrefix(), r.checkpointIndex()) + 1; i < r.lastIndex(); i++) {
                boolean hole = r.entry(i) == null;
                if (hole && (dangerousHole(leader, r, i, watchMode)
                        || dangerousHole(leader, r, i, APPLIED_PAST_STALE))) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean dangerousHole(Replica leader, Replica follower, long hole, int mode) {
        LogEntry stale = mode >= 2 ? staleCopyElsewhere(leader, hole) : null;
        if (mode >= 2 && stale == null) {
            return false;
        }
        long reach = mode == 3 ? hole + sim.config.lookBehind() : follower.lastIndex();
        for (long k = hole + 1; k <= Math.min(reach, follower.lastIndex()); k++) {
            LogEntry successor = follower.entry(k);
            if (successor == null) {
                continue;
            }
            boolean hit = switch (mode) {
                case 0, 2 -> leader.isCommitted(k);
                case 1 -> follower.isCommitted(k);
                default -> follower.isApplied(k) && successor.range().overlaps(stale.range());
            };
            if (hit) {
                return true;
            }
        }
        return false;
    }

    private LogEntry staleCopyElsewhere(Replica leader, long index) {
        for (int id : sim.isolated()) {
            Replica r = sim.node(id).replica();
            LogEntry stale = r == null ? null : r.entry(index);
            if (stale != null && stale.term() < leader.currentTerm()) {
                return stale;
            }
        }
        return null;
    }
}
