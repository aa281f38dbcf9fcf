package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.Message.VoteReply;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The merge stage: union from voters of the same synced term, holes as no-ops, new term everywhere. */
class MergeTest {

    private static LogEntry write(long term, long index, long block) {
        BlockRange range = new BlockRange(block, 1);
        WriteCommand command = new WriteCommand(1, index, 1, range, new ValuePayload(index));
        return new LogEntry(term, index, range, List.of(), command);
    }

    private static ReplicaLog logOf(long syncedTerm, LogEntry... entries) {
        TreeMap<Long, LogEntry> map = new TreeMap<>();
        for (LogEntry e : entries) {
            map.put(e.index(), e);
        }
        return new ReplicaLog(new PersistentState(syncedTerm, -1, true, syncedTerm, 0, map, Checkpoint.INITIAL));
    }

    private static VoteReply reply(int from, long syncedTerm, LogEntry... entries) {
        return new VoteReply(from, 0, 5, true, true, syncedTerm, 1, List.of(entries));
    }

    @Test
    void unionOfSameSyncedTermFillsHolesAndRestamps() {
        ReplicaLog own = logOf(3, write(3, 1, 1), write(3, 3, 3));
        MergeResult m = Merge.merge(own, 5, List.of(reply(1, 3, write(3, 2, 2))), false);
        assertThat(m.base()).isZero();
        assertThat(m.syncEnd()).isEqualTo(3);
        assertThat(m.entries()).extracting(LogEntry::term).containsOnly(5L);
        assertThat(m.entries()).extracting(e -> e.range().first()).containsExactly(1L, 2L, 3L);
    }

    @Test
    void holesNobodyHoldsBecomeNoops() {
        ReplicaLog own = logOf(3, write(3, 1, 1), write(3, 3, 3));
        MergeResult m = Merge.merge(own, 5, List.of(reply(1, 3)), false);
        assertThat(m.entries().get(1).isNoop()).isTrue();
        assertThat(m.entries().get(1).term()).isEqualTo(5);
    }

    @Test
    void entriesOfVotersSyncedToAnOlderTermAreIgnored() {
        // Voter 1 was synced to term 2 and holds a stale (ghost) entry at index 2: it must not fill the hole.
        ReplicaLog own = logOf(3, write(3, 1, 1), write(3, 3, 3));
        MergeResult safe = Merge.merge(own, 5, List.of(reply(1, 2, write(2, 2, 3))), false);
        assertThat(safe.entries().get(1).isNoop()).isTrue();
        MergeResult paper = Merge.merge(own, 5, List.of(reply(1, 2, write(2, 2, 3))), true);
        assertThat(paper.entries().get(1).isNoop()).as("the paper's merge resurrects the ghost").isFalse();
    }

    @Test
    void finalPrefixIsKeptAsIs() {
        ReplicaLog own = logOf(3, write(3, 1, 1), write(3, 2, 2));
        own.learnCommitted(1, List.of());
        MergeResult m = Merge.merge(own, 5, List.of(), false);
        assertThat(m.base()).isEqualTo(1);
        assertThat(m.entries()).extracting(LogEntry::index).containsExactly(2L);
    }
}
