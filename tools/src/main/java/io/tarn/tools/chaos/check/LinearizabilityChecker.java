package io.tarn.tools.chaos.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a history of operations on independent keys for linearizability against a sequential
 * {@link Model} of one key. Linearizability is compositional (P-compositionality, as Porcupine uses
 * it): the history is linearizable exactly when each key's sub-history is, so each key is searched
 * on its own ({@link KeySearch}), with its own budget of memoised states.
 *
 * <p>Failed operations are dropped (they had no effect), and so are indeterminate reads (they
 * returned nothing to check). Indeterminate writes stay: they may take effect at any point after
 * their invocation, or never.
 */
public final class LinearizabilityChecker<S> {
    /** Default budget of memoised configurations per key. */
    public static final long DEFAULT_BUDGET = 2_000_000;

    private final Model<S> model;
    private final long budget;

    /** A checker of {@code model} allowing at most {@code budget} memoised configurations per key. */
    public LinearizabilityChecker(Model<S> model, long budget) {
        if (budget < 1) {
            throw new IllegalArgumentException("budget must be at least 1, got " + budget);
        }
        this.model = model;
        this.budget = budget;
    }

    /** A read/write register checker with the default budget. */
    public static LinearizabilityChecker<String> registers() {
        return new LinearizabilityChecker<>(new RegisterModel(), DEFAULT_BUDGET);
    }

    /** The result of a check: the verdict, the first key that decided it (if any) and counts. */
    public record Result(Verdict verdict, String key, List<Operation> keyHistory, int keys, int operations,
                         long states) {
        /** One line for a verdict report. */
        public String summary() {
            String base = operations + " operations on " + keys + " keys, " + states + " states explored";
            return switch (verdict) {
                case LINEARIZABLE -> "linearizable (" + base + ")";
                case NOT_LINEARIZABLE -> "NOT linearizable: key " + key + " has no linearization (" + base + ")";
                case INCONCLUSIVE -> "INCONCLUSIVE: the search of key " + key + " exceeded its state budget ("
                        + base + ")";
            };
        }
    }

    /** Checks {@code history}. */
    public Result check(List<Operation> history) {
        Map<String, List<Operation>> byKey = new TreeMap<>();
        int kept = 0;
        for (Operation op : history) {
            if (op.outcome() == Operation.Outcome.FAILED
                    || op.outcome() == Operation.Outcome.INDETERMINATE && op.kind() == Operation.Kind.READ) {
                continue;
            }
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
            kept++;
        }
        long states = 0;
        String inconclusive = null;
        for (Map.Entry<String, List<Operation>> e : byKey.entrySet()) {
            KeySearch.Outcome outcome = new KeySearch<>(model, e.getValue()).run(budget);
            states += outcome.states();
            if (outcome.verdict() == Verdict.NOT_LINEARIZABLE) {
                return new Result(Verdict.NOT_LINEARIZABLE, e.getKey(), sorted(e.getValue()), byKey.size(), kept,
                        states);
            }
            if (outcome.verdict() == Verdict.INCONCLUSIVE && inconclusive == null) {
                inconclusive = e.getKey();
            }
        }
        if (inconclusive != null) {
            return new Result(Verdict.INCONCLUSIVE, inconclusive, sorted(byKey.get(inconclusive)), byKey.size(), kept,
                    states);
        }
        return new Result(Verdict.LINEARIZABLE, null, List.of(), byKey.size(), kept, states);
    }

    private static List<Operation> sorted(List<Operation> ops) {
        List<Operation> copy = new ArrayList<>(ops);
        copy.sort(Comparator.comparingLong(Operation::invoke));
        return copy;
    }
}
