package io.tarn.replication.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.Mode;
import io.tarn.replication.ReplicationConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs the deterministic simulator over many seeds and fails with the replay command of the first
 * failing seed. {@code -Dtarn.sim.seeds=N} sets how many seeds (default 4000 in PARALLEL mode and a
 * third of that in IN_ORDER mode), {@code -Dtarn.sim.seed=S} replays exactly one seed.
 */
class SimulationTest {

    private static final int DEFAULT_SEEDS = 4000;

    @Test
    void parallelRaftKeepsEveryInvariantUnderFaults() {
        runSeeds("parallelRaftKeepsEveryInvariantUnderFaults", ReplicationConfig.defaults(), seedCount());
    }

    @Test
    void inOrderModeKeepsEveryInvariantUnderFaults() {
        runSeeds("inOrderModeKeepsEveryInvariantUnderFaults",
                ReplicationConfig.builder().mode(Mode.IN_ORDER).build(), Math.max(1, seedCount() / 3));
    }

    @Test
    void sameSeedReplaysTheSameRun() {
        SimOptions options = SimOptions.chaos(ReplicationConfig.defaults());
        Simulation.RunStats first = new Simulation(options, 42).run();
        Simulation.RunStats second = new Simulation(options, 42).run();
        assertThat(second).isEqualTo(first);
        assertThat(first.completedOps()).isPositive();
    }

    private static int seedCount() {
        return Integer.getInteger("tarn.sim.seeds", DEFAULT_SEEDS);
    }

    private static void runSeeds(String testName, ReplicationConfig config, int seeds) {
        SimOptions options = SimOptions.chaos(config);
        String single = System.getProperty("tarn.sim.seed");
        List<Long> toRun = new ArrayList<>();
        if (single != null && !single.isBlank()) {
            toRun.add(Long.parseLong(single.trim()));
        } else {
            for (long s = 1; s <= seeds; s++) {
                toRun.add(s);
            }
        }
        long leaders = 0;
        long completed = 0;
        long committed = 0;
        for (long seed : toRun) {
            Simulation.RunStats stats;
            try {
                stats = new Simulation(options, seed).run();
            } catch (RuntimeException | StackOverflowError e) {
                throw new AssertionError("seed " + seed + " failed: " + e.getMessage() + "\nreplay with: "
                        + "mvn -pl replication verify -Dtest=SimulationTest#" + testName
                        + " -Dtarn.sim.seed=" + seed, e);
            }
            leaders += stats.leaders();
            completed += stats.completedOps();
            committed += stats.committed();
        }
        assertThat(completed).as("client operations completed over all seeds").isGreaterThan(toRun.size() * 10L);
        assertThat(leaders).as("leaders elected").isGreaterThanOrEqualTo(toRun.size());
        assertThat(committed).isPositive();
    }
}
