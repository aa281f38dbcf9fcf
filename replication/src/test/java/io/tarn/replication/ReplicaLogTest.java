package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The apply rule: committed, no unapplied overlapping predecessor in the window, no wide hole. */
class ReplicaLogTest {

    private final ReplicaLog log = new ReplicaLog(PersistentState.initialVoter());
    private final List<Long> applied = new ArrayList<>();

    private static LogEntry write(long index, long first, List<BlockRange> lookBehind) {
        BlockRange range = new BlockRange(first, 1);
        WriteCommand command = new WriteCommand(1, index, index, range, new ValuePayload(index));
        return new LogEntry(1, index, range, lookBehind, command);
    }

    private void apply(int lookBehind) {
        log.takeApplicable(lookBehind, new ReplicaLog.ApplyListener() {
            @Override
            public void applied(LogEntry entry) {
                applied.add(entry.index());
            }

            @Override
            public void prefixPassed(LogEntry entry) {
            }
        });
    }

    @Test
    void nonConflictingEntryAppliesBeforeAnUncommittedPredecessor() {
        log.put(write(1, 10, List.of()), 1);
        log.put(write(2, 20, List.of(new BlockRange(10, 1))), 1);
        log.learnCommitted(0, List.of(2L));
        apply(2);
        assertThat(applied).containsExactly(2L);
        assertThat(log.appliedPrefix()).isZero();
        log.learnCommitted(1, List.of());
        apply(2);
        assertThat(applied).containsExactly(2L, 1L);
        assertThat(log.appliedPrefix()).isEqualTo(2);
    }

    @Test
    void conflictingEntryWaitsInLogOrder() {
        log.put(write(1, 10, List.of()), 1);
        log.put(write(2, 10, List.of(new BlockRange(10, 1))), 1);
        log.learnCommitted(0, List.of(2L));
        apply(2);
        assertThat(applied).isEmpty();
        log.learnCommitted(1, List.of());
        apply(2);
        assertThat(applied).containsExactly(1L, 2L);
    }

    @Test
    void missingPredecessorIsJudgedByTheLookBehindBuffer() {
        // Entry 1 is a hole here, but entry 2's buffer says it wrote block 10: no conflict with 20.
        log.put(write(2, 20, List.of(new BlockRange(10, 1))), 1);
        log.learnCommitted(0, List.of(2L));
        apply(2);
        assertThat(applied).containsExactly(2L);
    }

    @Test
    void entryPastAHoleWiderThanNWaits() {
        log.put(write(4, 40, List.of(new BlockRange(30, 1), new BlockRange(20, 1))), 1);
        log.learnCommitted(0, List.of(4L));
        apply(2);
        assertThat(applied).as("entry 1 is outside entry 4's look-behind of 2").isEmpty();
        apply(3);
        assertThat(applied).as("with N=3 the buffer would have to cover entry 1 too").isEmpty();
    }

    @Test
    void inOrderModeAppliesOnlyThePrefix() {
        log.put(write(1, 10, List.of()), 1);
        log.put(write(2, 20, List.of(new BlockRange(10, 1))), 1);
        log.learnCommitted(0, List.of(2L));
        apply(0);
        assertThat(applied).isEmpty();
        log.learnCommitted(2, List.of());
        apply(0);
        assertThat(applied).containsExactly(1L, 2L);
    }

    @Test
    void finalPrefixNeedsBothCommitAndPresence() {
        log.put(write(1, 10, List.of()), 1);
        log.put(write(3, 30, List.of()), 1);
        log.learnCommitted(3, List.of());
        assertThat(log.contiguousIndex()).isEqualTo(1);
        assertThat(log.finalPrefix()).isEqualTo(1);
    }

    @Test
    void durabilityFollowsTheWriteThatIsStillHeld() {
        LogEntry first = write(1, 10, List.of());
        log.put(first, 1);
        LogEntry replaced = first.restamp(2);
        log.put(replaced, 2);
        assertThat(log.markDurable(first, 1)).as("an overwritten copy is not acknowledged").isFalse();
        assertThat(log.markDurable(replaced, 2)).isTrue();
    }

    @Test
    void installedCheckpointDoesNotVouchForHeldCopiesOfTheEntriesItApplied() {
        // The copy held at 3 may be a stale one from an older term: only the leader says what is committed there.
        log.put(write(1, 10, List.of()), 1);
        log.put(write(3, 30, List.of()), 1);
        CheckpointMeta meta = new CheckpointMeta(1, List.of(3L), Map.of());
        Checkpoint checkpoint = new Checkpoint(meta, new TestCluster.Image(Map.of()));
        log.installCheckpoint(checkpoint);
        assertThat(log.isApplied(3)).isTrue();
        assertThat(log.isCommitted(3)).isFalse();
        // The same after a restart from a disk that still has that copy.
        TreeMap<Long, LogEntry> disk = new TreeMap<>();
        disk.put(3L, write(3, 30, List.of()));
        ReplicaLog restarted = new ReplicaLog(new PersistentState(1, -1, true, 1, 0, disk, checkpoint));
        assertThat(restarted.isApplied(3)).isTrue();
        assertThat(restarted.isCommitted(3)).isFalse();
        restarted.learnCommitted(3, List.of());
        assertThat(restarted.commitPrefix()).isEqualTo(3);
    }
}
