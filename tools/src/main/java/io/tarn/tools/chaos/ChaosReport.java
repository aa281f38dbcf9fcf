package io.tarn.tools.chaos;

import io.tarn.tools.chaos.check.LinearizabilityChecker;
import io.tarn.tools.chaos.check.Operation;
import io.tarn.tools.chaos.check.Verdict;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The verdict of a chaos run and what led to it. It passes when the history is linearizable, no
 * acknowledged write was lost and the replicas were not found to differ (with one copy per block
 * they are not compared, and the report says so).
 *
 * @param options       the run's parameters
 * @param faults        faults injected, by name
 * @param operations    operations by kind and outcome
 * @param linearizable  the check of the history
 * @param acknowledged  writes acknowledged to their client
 * @param lost          acknowledged writes not read back at quiescence: key, and what was found
 * @param replicas      the replica comparison
 * @param history       the history file, or null when it was deleted (a passing run)
 * @param seconds       wall time of the whole run, cluster start and clean-up included
 */
public record ChaosReport(ChaosOptions options, Map<String, Integer> faults, Map<String, Long> operations,
                          LinearizabilityChecker.Result linearizable, int acknowledged, Map<String, String> lost,
                          ReplicaCheck.Result replicas, Path history, double seconds) {
    /** True when every part of the verdict holds. */
    public boolean passed() {
        return linearizable.verdict() == Verdict.LINEARIZABLE && lost.isEmpty()
                && replicas.status() != ReplicaCheck.Status.DIFFERENT;
    }

    /** Prints the report, ending with the verdict and, for a failure, how to replay it. */
    public void print(PrintStream out) {
        out.println("faults injected: " + (faults.isEmpty() ? "none" : faults));
        out.println("operations: " + operations);
        out.println("linearizability: " + linearizable.summary());
        if (linearizable.verdict() != Verdict.LINEARIZABLE) {
            List<Operation> ops = linearizable.keyHistory();
            out.println("  history of key " + linearizable.key() + " (times in ns):");
            ops.stream().limit(40).forEach(op -> out.println("    " + op));
        }
        out.println("acknowledged writes: " + acknowledged + ", read back at quiescence: "
                + (acknowledged - lost.size()) + ", lost: " + lost.size());
        lost.entrySet().stream().limit(10).forEach(e -> out.println("  lost " + e.getKey() + ": " + e.getValue()));
        out.println("replicas: " + replicas.detail());
        out.printf("verdict: %s (%.1f s)%n", passed() ? "PASS" : "FAIL", seconds);
        if (history != null) {
            out.println("history: " + history);
        }
        if (!passed()) {
            out.println("seed: " + options.seed() + "; replay the fault schedule with: " + options.replayCommand());
        }
    }
}
