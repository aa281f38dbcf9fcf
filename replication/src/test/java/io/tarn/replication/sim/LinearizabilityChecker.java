package io.tarn.replication.sim;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks that a history of per-block reads and writes is linearizable, treating each block as a
 * read/write register with initial value 0 (linearizability is local, so blocks are checked one by
 * one). The search is the Wing-Gong algorithm with Lowe's memoisation of (linearized set, register
 * value): an operation may be linearized next if it was invoked before every remaining completed
 * operation returned; a write that never returned may be linearized anywhere after its invocation
 * or not at all.
 */
final class LinearizabilityChecker {

    /** Raised when the search space exceeds the budget; the history is then neither proven nor refuted. */
    static final class Inconclusive extends RuntimeException {
        Inconclusive(String message) {
            super(message);
        }
    }

    private record BlockOp(boolean write, long value, long invoke, long response) {
    }

    private record State(BitSet done, long value) {
    }

    private final int stateBudget;

    LinearizabilityChecker(int stateBudget) {
        this.stateBudget = stateBudget;
    }

    /** Returns null when linearizable, otherwise a description of the first failing block. */
    String check(List<History.Op> history) {
        Map<Long, List<BlockOp>> byBlock = new TreeMap<>();
        for (History.Op op : history) {
            if (!op.write && op.response == History.PENDING) {
                continue;
            }
            for (int k = 0; k < op.count; k++) {
                long value = op.write ? op.value : op.observed[k];
                byBlock.computeIfAbsent(op.first + k, b -> new ArrayList<>())
                        .add(new BlockOp(op.write, value, op.invoke, op.response));
            }
        }
        for (Map.Entry<Long, List<BlockOp>> e : byBlock.entrySet()) {
            if (!linearizable(e.getValue())) {
                return "block " + e.getKey() + " history is not linearizable: " + e.getValue();
            }
        }
        return null;
    }

    private boolean linearizable(List<BlockOp> ops) {
        ops.sort(Comparator.comparingLong(BlockOp::invoke));
        BitSet completed = new BitSet();
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).response() != History.PENDING) {
                completed.set(i);
            }
        }
        return search(ops, completed, new BitSet(), 0, new HashSet<>());
    }

    private boolean search(List<BlockOp> ops, BitSet completed, BitSet done, long value, Set<State> seen) {
        BitSet remainingCompleted = (BitSet) completed.clone();
        remainingCompleted.andNot(done);
        if (remainingCompleted.isEmpty()) {
            return true;
        }
        long minResponse = Long.MAX_VALUE;
        for (int i = remainingCompleted.nextSetBit(0); i >= 0; i = remainingCompleted.nextSetBit(i + 1)) {
            minResponse = Math.min(minResponse, ops.get(i).response());
        }
        for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1)) {
            BlockOp op = ops.get(i);
            if (op.invoke() > minResponse) {
                break;
            }
            if (!op.write() && op.value() != value) {
                continue;
            }
            long next = op.write() ? op.value() : value;
            done.set(i);
            if (seen.add(new State((BitSet) done.clone(), next))) {
                if (seen.size() > stateBudget) {
                    throw new Inconclusive("linearizability search exceeded " + stateBudget + " states");
                }
                if (search(ops, completed, done, next, seen)) {
                    return true;
                }
            }
            done.clear(i);
        }
        return false;
    }
}
