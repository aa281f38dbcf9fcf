package io.tarn.tools.chaos.check;

import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Histories made by a sequential simulation whose operations are then stretched at random in real
 * time around their linearization points: always linearizable. Copies mutated in ways that are
 * provably impossible (a value never written, absent after a completed write, a value read before
 * its write began) must be refuted.
 */
class RandomHistoriesTest {
    private static final String[] KEYS = {"a", "b", "c"};

    /** A simulated history, in the order of its linearization points. */
    record Simulated(List<Operation> ops) {
    }

    static Simulated simulate(long seed, int count) {
        Random random = new Random(seed);
        Map<String, String> state = new HashMap<>();
        List<Operation> ops = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long point = 100L * i;
            long invoke = point - random.nextInt(400);
            long complete = point + random.nextInt(400);
            String key = KEYS[random.nextInt(KEYS.length)];
            int client = random.nextInt(6);
            int roll = random.nextInt(10);
            Operation op;
            if (roll < 4) {
                String value = "v" + i;
                state.put(key, value);
                op = Operation.write(i, client, key, value, invoke, complete);
                if (random.nextInt(5) == 0) {
                    op = op.indeterminate();
                }
            } else if (roll == 4) {
                // A write that failed: never applied.
                op = new Operation(i, client, key, Operation.Kind.WRITE, "failed" + i, invoke, complete,
                        Operation.Outcome.FAILED);
            } else {
                op = Operation.read(i, client, key, state.get(key), invoke, complete);
                if (random.nextInt(8) == 0) {
                    op = op.indeterminate();
                }
            }
            ops.add(op);
        }
        return new Simulated(ops);
    }

    @Property(tries = 300)
    void stretchedSequentialHistoriesAreLinearizable(@ForAll long seed) {
        Simulated sim = simulate(seed, 60);
        assertThat(LinearizabilityChecker.registers().check(sim.ops()).verdict())
                .as("seed %d", seed).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Property(tries = 300)
    void mutatedHistoriesAreRefuted(@ForAll long seed) {
        Simulated sim = simulate(seed, 60);
        Random random = new Random(~seed);
        List<Operation> ops = new ArrayList<>(sim.ops());
        List<Integer> reads = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (op.kind() == Operation.Kind.READ && op.outcome() == Operation.Outcome.OK) {
                reads.add(i);
            }
        }
        Assume.that(!reads.isEmpty());
        int victim = reads.get(random.nextInt(reads.size()));
        Operation read = ops.get(victim);
        Operation mutated = mutate(read, ops, random.nextInt(3));
        Assume.that(mutated != null);
        ops.set(victim, mutated);
        assertThat(LinearizabilityChecker.registers().check(ops).verdict())
                .as("seed %d, %s became %s", seed, read, mutated).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    /** A provably impossible variant of {@code read}, or null when this kind does not apply to it. */
    private static Operation mutate(Operation read, List<Operation> ops, int kind) {
        switch (kind) {
            case 0:
                return read.withValue("ghost");
            case 1:
                // Absent after a write of the key completed: registers never return to absent.
                for (Operation w : ops) {
                    if (isWrite(w, read.key()) && w.outcome() == Operation.Outcome.OK && w.complete() < read.invoke()) {
                        return read.withValue(null);
                    }
                }
                return null;
            default:
                // A value whose write began only after this read ended.
                for (Operation w : ops) {
                    if (isWrite(w, read.key()) && w.outcome() != Operation.Outcome.FAILED
                            && w.invoke() > read.complete()) {
                        return read.withValue(w.value());
                    }
                }
                return null;
        }
    }

    private static boolean isWrite(Operation op, String key) {
        return op.kind() == Operation.Kind.WRITE && op.key().equals(key);
    }
}
