package io.tarn.tools.chaos.check;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.tarn.tools.chaos.check.Operation.read;
import static io.tarn.tools.chaos.check.Operation.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Known histories of read/write registers: violations the checker must find (stale reads, values
 * never written, writes seen in opposite orders, lost acknowledged writes) and linearizable ones it
 * must accept (overlapping operations, indeterminate writes that happened late or never).
 */
class LinearizabilityCheckerTest {
    private final LinearizabilityChecker<String> checker = LinearizabilityChecker.registers();

    private LinearizabilityChecker.Result check(Operation... ops) {
        return checker.check(List.of(ops));
    }

    @Test
    void staleReadAfterACompletedWriteIsRefuted() {
        LinearizabilityChecker.Result r = check(
                write(1, 0, "x", "a", 0, 10),
                read(2, 1, "x", null, 20, 30));
        assertThat(r.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(r.key()).isEqualTo("x");
        assertThat(r.keyHistory()).extracting(Operation::id).containsExactly(1L, 2L);
        assertThat(r.summary()).contains("NOT linearizable", "key x");
    }

    @Test
    void readOfAValueNeverWrittenIsRefuted() {
        assertThat(check(
                write(1, 0, "x", "a", 0, 10),
                read(2, 1, "x", "b", 5, 30)).verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void readsObservingTwoWritesInOppositeOrdersAreRefuted() {
        // Both writes overlap all reads, so each order alone would do; but client 2 sees a then b and
        // client 3 sees b then a, and no value is written twice.
        assertThat(twoWritesReadInOrder("a", "b", "b", "a")).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void twoClientsSeeingOverlappingWritesInOneOrderIsLinearizable() {
        assertThat(twoWritesReadInOrder("a", "b", "a", "b")).isEqualTo(Verdict.LINEARIZABLE);
    }

    /** Writes of a and b overlapping two reads each by clients 2 and 3, which return the given values. */
    private Verdict twoWritesReadInOrder(String first2, String second2, String first3, String second3) {
        return check(
                write(1, 0, "x", "a", 0, 100),
                write(2, 1, "x", "b", 0, 100),
                read(3, 2, "x", first2, 10, 20),
                read(4, 2, "x", second2, 30, 40),
                read(5, 3, "x", first3, 10, 20),
                read(6, 3, "x", second3, 30, 40)).verdict();
    }

    @Test
    void lostAcknowledgedWriteIsRefuted() {
        assertThat(check(
                write(1, 0, "x", "a", 0, 10),
                write(2, 0, "x", "b", 20, 30),
                read(3, 1, "x", "a", 40, 50)).verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void overlappingReadsMaySeeEitherSideOfAWrite() {
        assertThat(check(
                write(1, 0, "x", "a", 10, 50),
                read(2, 1, "x", null, 0, 20),
                read(3, 2, "x", "a", 15, 30),
                read(4, 3, "x", null, 5, 40),
                read(5, 1, "x", "a", 45, 60)).verdict()).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void readAbsentAfterAnotherClientSawTheValueIsRefutedEvenWhileTheWriteIsOpen() {
        assertThat(check(
                write(1, 0, "x", "a", 0, 100),
                read(2, 1, "x", "a", 10, 20),
                read(3, 2, "x", null, 30, 40)).verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void indeterminateWriteMayTakeEffectLate() {
        assertThat(check(
                write(1, 0, "x", "a", 0, 10).indeterminate(),
                read(2, 1, "x", null, 20, 30),
                read(3, 1, "x", null, 40, 50),
                read(4, 2, "x", "a", 60, 70),
                read(5, 1, "x", "a", 80, 90)).verdict()).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void indeterminateWriteMayNeverTakeEffect() {
        assertThat(check(
                write(1, 0, "x", "a", 0, 10).indeterminate(),
                read(2, 1, "x", null, 20, 30),
                read(3, 2, "x", null, 1_000, 1_010)).verdict()).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void indeterminateWriteCannotTakeEffectBeforeItsInvocation() {
        assertThat(check(
                read(1, 1, "x", "a", 0, 10),
                write(2, 0, "x", "a", 20, 30).indeterminate()).verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void indeterminateWriteSeenThenUnseenIsRefuted() {
        assertThat(check(
                write(1, 0, "x", "a", 0, 10).indeterminate(),
                read(2, 1, "x", "a", 20, 30),
                read(3, 1, "x", null, 40, 50)).verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void failedOperationsAndIndeterminateReadsAreIgnored() {
        Operation failed = new Operation(1, 0, "x", Operation.Kind.WRITE, "a", 0, 10, Operation.Outcome.FAILED);
        LinearizabilityChecker.Result r = check(
                failed,
                read(2, 1, "x", "zzz", 20, 30).indeterminate(),
                read(3, 1, "x", null, 40, 50));
        assertThat(r.verdict()).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(r.operations()).isEqualTo(1);
    }

    @Test
    void keysAreCheckedIndependently() {
        LinearizabilityChecker.Result r = check(
                write(1, 0, "x", "a", 0, 10),
                read(2, 1, "y", null, 20, 30),
                read(3, 1, "x", "a", 20, 30),
                write(4, 2, "y", "b", 40, 50),
                read(5, 1, "y", null, 60, 70));
        assertThat(r.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(r.key()).isEqualTo("y");
        assertThat(r.keys()).isEqualTo(2);
    }

    @Test
    void searchBeyondItsBudgetIsInconclusiveNotEndless() {
        // Twelve overlapping writes and reads that pin down one order of them: a real search.
        List<Operation> ops = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ops.add(write(i, i, "x", "v" + i, 0, 1_000));
        }
        for (int i = 0; i < 12; i++) {
            ops.add(read(100 + i, 20, "x", "v" + (11 - i), 10 + 10 * i, 15 + 10 * i));
        }
        LinearizabilityChecker.Result tight = new LinearizabilityChecker<>(new RegisterModel(), 5).check(ops);
        assertThat(tight.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(tight.summary()).contains("INCONCLUSIVE", "budget");
        assertThat(checker.check(ops).verdict()).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void emptyHistoryIsLinearizable() {
        assertThat(checker.check(List.of()).verdict()).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void malformedOperationsAreRejected() {
        assertThatThrownBy(() -> write(1, 0, "x", null, 0, 1)).hasMessageContaining("non-empty value");
        assertThatThrownBy(() -> read(1, 0, "x", "a", 5, 1)).hasMessageContaining("before it is invoked");
        assertThatThrownBy(() -> new LinearizabilityChecker<>(new RegisterModel(), 0))
                .hasMessageContaining("budget");
    }
}
