package io.tarn.replication.host;

import io.tarn.replication.host.GroupRunner.Outcome;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Writes to a group as a client does: to the member believed to lead, following NOT_LEADER hints
 * and retrying (same sequence) while the group elects, syncs or pushes back, until a deadline. A
 * loaded machine may stall a loop past an election timeout, so tests of what happens after a write
 * use this rather than assuming the first leader keeps leading.
 */
public final class TestWriter {
    private final IntFunction<GroupRunner> members;
    private final int size;
    private int leaderGuess;

    public TestWriter(IntFunction<GroupRunner> members, int size, int firstGuess) {
        this.members = members;
        this.size = size;
        this.leaderGuess = firstGuess;
    }

    /** The member that acknowledged the last write. */
    public int leader() {
        return leaderGuess;
    }

    /** Writes until a member acknowledges it, or fails after ten seconds. */
    public Outcome write(WriteCommand command) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Outcome last = null;
        while (System.nanoTime() < deadline) {
            GroupRunner runner = members.apply(leaderGuess);
            last = runner == null ? null : runner.write(command).get(10, TimeUnit.SECONDS);
            if (last != null && last.ok()) {
                return last;
            }
            if (last != null && last.status() == Status.NOT_LEADER && last.leaderHint() >= 0) {
                leaderGuess = last.leaderHint();
            } else if (last == null || last.status() == null || last.status() == Status.NOT_LEADER) {
                leaderGuess = (leaderGuess + 1) % size;
                Thread.sleep(5);
            } else {
                Thread.sleep(2);
            }
        }
        throw new AssertionError("no member acknowledged " + command + "; last answer " + last);
    }
}
