package io.tarn.tools.chaos;

import io.tarn.tools.chaos.check.LinearizabilityChecker;
import io.tarn.tools.chaos.check.Operation;
import io.tarn.tools.chaos.check.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The history file: one JSON line per event, as it happens, read back into the same operations
 * (an operation never completed becoming indeterminate), so a kept history can be checked again.
 */
class HistoryTest {
    @Test
    void writtenHistoryReadsBackAsTheSameOperations(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("history.jsonl");
        List<Operation> recorded;
        try (History h = new History(file)) {
            h.note("seed 7, \"quoted\"\tand\\slashed\u0001");
            History.Pending w = h.invoke(0, Operation.Kind.WRITE, "k1", "c0-k1-\"x\"");
            History.Pending r = h.invoke(1, Operation.Kind.READ, "k1", null);
            h.complete(w, Operation.Outcome.OK, null, null);
            h.fault("kill", "dn2");
            h.complete(r, Operation.Outcome.OK, "c0-k1-\"x\"", null);
            History.Pending lost = h.invoke(1, Operation.Kind.READ, "k2", null);
            h.complete(lost, Operation.Outcome.INDETERMINATE, null, "RpcTimeoutException: no response\nat all");
            h.invoke(2, Operation.Kind.WRITE, "k3", "never-completed");
            recorded = h.operations();
        }
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(9);
        assertThat(lines).allSatisfy(l -> assertThat(l).startsWith("{\"event\":\"").endsWith("}"));
        assertThat(lines.get(0)).contains("\\\"quoted\\\"\\tand\\\\slashed\\u0001");

        List<Operation> back = HistoryReader.read(file);
        back.sort(Comparator.comparingLong(Operation::id));
        assertThat(back.subList(0, 3)).containsExactlyInAnyOrderElementsOf(recorded);
        Operation open = back.get(3);
        assertThat(open.key()).isEqualTo("k3");
        assertThat(open.outcome()).isEqualTo(Operation.Outcome.INDETERMINATE);
        assertThat(open.value()).isEqualTo("never-completed");
        assertThat(LinearizabilityChecker.registers().check(back).verdict()).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void malformedLineNamesFileAndLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("h.jsonl");
        Files.writeString(file, "{\"event\":\"note\",\"text\":\"ok\",\"t\":1}\n{\"event\":\"invoke\",\"id\":x}\n");
        assertThatThrownBy(() -> HistoryReader.read(file)).hasMessageContaining("h.jsonl:2:");
    }
}
