package io.tarn.benchmarks;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * CPU time spent while a loopback benchmark runs: by the namenode's threads ({@link NamenodeCpu})
 * and by the whole JVM process (namenode, datanode, client, JMH itself, GC and JIT).
 *
 * <p>Two JMH auxiliary counters of type {@code OPERATIONS}: {@code nnCpuNanos} and
 * {@code procCpuNanos} hold the CPU nanoseconds used during the iteration's batches, and JMH
 * reports them per second like the primary score, so {@code nnCpuNanos} in "ops/s" is CPU
 * nanoseconds per second (1e9 = one core busy) and {@code nnCpuNanos / score} is CPU time per
 * operation. (A per-operation ratio cannot be an auxiliary counter: JMH sums {@code EVENTS}
 * counters over iterations.) That ratio, over the measured iterations only, is printed to stdout
 * by the trial's tear-down: {@code # CPU per operation ...}.
 *
 * <p>Meaningful with one benchmark thread ({@code -t 1}, the default): each thread's counters see
 * the namenode's and the process's CPU time, so several threads would count it several times.
 */
@AuxCounters(AuxCounters.Type.OPERATIONS)
@State(Scope.Thread)
public class CpuCounters {
    /** CPU nanoseconds of the namenode's threads during this iteration's batches. */
    public long nnCpuNanos;
    /** CPU nanoseconds of the whole process during this iteration's batches. */
    public long procCpuNanos;

    private boolean measuring;
    private long operations;
    private long namenodeStart;
    private long processStart;
    private long measuredNamenodeNanos;
    private long measuredProcessNanos;
    private long measuredOperations;

    @Setup(Level.Iteration)
    public void reset(IterationParams params) {
        reset(params.getType() == IterationType.MEASUREMENT);
    }

    /** Starts an iteration; {@code measured}: it counts for the per-operation figures. */
    void reset(boolean measured) {
        nnCpuNanos = 0;
        procCpuNanos = 0;
        operations = 0;
        measuring = measured;
    }

    @TearDown(Level.Iteration)
    public void addIteration() {
        if (measuring) {
            measuredNamenodeNanos += nnCpuNanos;
            measuredProcessNanos += procCpuNanos;
            measuredOperations += operations;
        }
    }

    @TearDown(Level.Trial)
    public void report() {
        if (measuredOperations > 0) {
            System.out.printf("%n# CPU per operation over the measured iterations (%d operations): "
                            + "namenode threads %.0f ns, whole process %.0f ns%n", measuredOperations,
                    (double) measuredNamenodeNanos / measuredOperations,
                    (double) measuredProcessNanos / measuredOperations);
        }
    }

    /** Notes where the clocks stand before a batch (package-private: public methods would be counters). */
    void begin(NamenodeCpu cpu) {
        namenodeStart = cpu.namenodeNanos();
        processStart = NamenodeCpu.processNanos();
    }

    /** Adds the batch of {@code ops} operations that began at the last {@link #begin}. */
    void end(NamenodeCpu cpu, int ops) {
        nnCpuNanos += cpu.namenodeNanos() - namenodeStart;
        procCpuNanos += NamenodeCpu.processNanos() - processStart;
        operations += ops;
    }

    /** Namenode CPU nanoseconds per operation in the current iteration. */
    double namenodeNanosPerOp() {
        return operations == 0 ? 0 : (double) nnCpuNanos / operations;
    }

    /** Process CPU nanoseconds per operation in the current iteration. */
    double processNanosPerOp() {
        return operations == 0 ? 0 : (double) procCpuNanos / operations;
    }
}
