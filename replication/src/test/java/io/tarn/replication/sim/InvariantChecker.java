package io.tarn.replication.sim;

import io.tarn.replication.LogEntry;
import io.tarn.replication.Replica;
import io.tarn.replication.Role;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The safety invariants, checked after every simulator step: at most one leader per term; a
 * committed index never changes content (and an active leader holds every committed entry);
 * overlapping writes apply in log order on every replica (checked by {@link SimNode} at apply);
 * committed configurations follow each other by single-member steps and every replica that
 * applies a change agrees on it. At quiescence: every member of the final configuration applied
 * every committed entry, agrees on the configuration and holds identical data.
 */
final class InvariantChecker {

    private final Map<Long, Integer> leaderOfTerm = new HashMap<>();
    private final TreeMap<Long, LogEntry> committed = new TreeMap<>();
    private final Set<String> activeLeadersChecked = new HashSet<>();
    private final TreeMap<Long, List<Integer>> configurations = new TreeMap<>();
    private final List<Integer> founding;
    private final int scanDepth;

    InvariantChecker(int window, List<Integer> founding) {
        this.scanDepth = 3 * window;
        this.founding = List.copyOf(founding);
    }

    /** The members of the latest configuration some replica applied (the founding ones before). */
    List<Integer> committedMembers() {
        return configurations.isEmpty() ? founding : configurations.lastEntry().getValue();
    }

    int membershipChanges() {
        return configurations.size();
    }

    /** A replica applied a configuration entry: it must agree with every other and be a single step. */
    void onMembershipChanged(int node, List<Integer> members, long index) {
        List<Integer> known = configurations.putIfAbsent(index, members);
        if (known != null && !known.equals(members)) {
            throw new InvariantViolation("node " + node + " applied configuration " + members + " at " + index
                    + " where " + known + " was applied");
        }
        Map.Entry<Long, List<Integer>> before = configurations.lowerEntry(index);
        checkSingleStep(before == null ? founding : before.getValue(), members, index);
        Map.Entry<Long, List<Integer>> after = configurations.higherEntry(index);
        if (after != null) {
            checkSingleStep(members, after.getValue(), after.getKey());
        }
    }

    private static void checkSingleStep(List<Integer> from, List<Integer> to, long index) {
        long changed = to.stream().filter(m -> !from.contains(m)).count()
                + from.stream().filter(m -> !to.contains(m)).count();
        if (changed != 1) {
            throw new InvariantViolation("configuration " + from + " -> " + to + " at " + index
                    + " is not a single-member change");
        }
    }

    int leadersElected() {
        return leaderOfTerm.size();
    }

    long committedCount() {
        return committed.size();
    }

    void onRoleChanged(int node, Role role, long term) {
        if (role != Role.LEADER) {
            return;
        }
        Integer previous = leaderOfTerm.putIfAbsent(term, node);
        if (previous != null && previous != node) {
            throw new InvariantViolation("two leaders in term " + term + ": " + previous + " and " + node);
        }
    }

    /** An entry a replica applied (or holds as committed): it must match every other committed copy. */
    void onCommitted(int node, LogEntry entry) {
        LogEntry known = committed.putIfAbsent(entry.index(), entry);
        if (known != null && !known.sameContent(entry)) {
            throw new InvariantViolation("committed entry " + entry.index() + " changed on node " + node
                    + ": was " + known + ", now " + entry);
        }
    }

    void afterStep(List<SimNode> nodes) {
        for (SimNode node : nodes) {
            Replica r = node.replica();
            if (r == null) {
                continue;
            }
            long from = Math.max(r.checkpointIndex(), r.commitPrefix() - scanDepth) + 1;
            for (long i = from; i <= r.lastIndex(); i++) {
                LogEntry e = r.entry(i);
                if (e != null && r.isCommitted(i)) {
                    onCommitted(node.id, e);
                }
            }
            if (r.isActiveLeader() && activeLeadersChecked.add(r.currentTerm() + "/" + node.id)) {
                checkHoldsCommitted(node.id, r);
            }
        }
    }

    /** An active leader's log must contain every entry ever committed above its checkpoint. */
    private void checkHoldsCommitted(int node, Replica r) {
        for (LogEntry e : committed.tailMap(r.checkpointIndex(), false).values()) {
            LogEntry held = r.entry(e.index());
            if (held == null || !held.sameContent(e)) {
                throw new InvariantViolation("leader " + node + " of term " + r.currentTerm()
                        + " lost committed entry " + e + "; holds " + held);
            }
        }
    }

    void atQuiescence(List<SimNode> nodes) {
        long maxCommitted = committed.isEmpty() ? 0 : committed.lastKey();
        Map<Long, long[]> reference = null;
        int referenceNode = -1;
        for (SimNode node : nodes) {
            Replica r = node.replica();
            if (!r.members().equals(committedMembers())) {
                throw new InvariantViolation("node " + node.id + " has members " + r.members() + " but "
                        + committedMembers() + " were committed");
            }
            for (long i = 1; i <= maxCommitted; i++) {
                if (committed.containsKey(i) && !r.isApplied(i)) {
                    throw new InvariantViolation("node " + node.id + " never applied committed entry " + i);
                }
            }
            for (LogEntry e : committed.tailMap(r.checkpointIndex(), false).values()) {
                LogEntry held = r.entry(e.index());
                if (held != null && !held.sameContent(e)) {
                    throw new InvariantViolation("node " + node.id + " holds " + held + " where " + e
                            + " was committed");
                }
            }
            if (reference == null) {
                reference = node.blocks();
                referenceNode = node.id;
            } else {
                compareData(referenceNode, reference, node.id, node.blocks());
            }
        }
    }

    private static void compareData(int aId, Map<Long, long[]> a, int bId, Map<Long, long[]> b) {
        Set<Long> keys = new HashSet<>(a.keySet());
        keys.addAll(b.keySet());
        for (Long block : keys) {
            long va = a.containsKey(block) ? a.get(block)[0] : 0;
            long vb = b.containsKey(block) ? b.get(block)[0] : 0;
            if (va != vb) {
                throw new InvariantViolation("replicas diverged at quiescence: block " + block + " is " + va
                        + " on node " + aId + " but " + vb + " on node " + bId);
            }
        }
    }
}
