package io.tarn.common.config;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The keys' groups: every key in exactly one, the one of the process its name says reads it. */
class TarnKeysTest {
    @Test
    void everyKeyIsInOneGroupAndItsNameMatchesTheGroup() {
        List<ConfigKey<?>> grouped = new ArrayList<>();
        for (TarnKeys.Group g : TarnKeys.GROUPS) {
            grouped.addAll(g.keys());
            String prefix = g.title().startsWith("RPC") ? "tarn.rpc." : g.title().startsWith("Namenode")
                    ? "tarn.namenode." : g.title().startsWith("Datanode") ? "tarn.datanode."
                    : g.title().startsWith("Client") ? "tarn.client."
                    : g.title().startsWith("Replication") ? "tarn.replication." : null;
            if (prefix != null) {
                // tarn.datanode.replace.after is the namenode's (it replaces members of dead datanodes),
                // named after what it is about, as issue 20 names it.
                assertThat(g.keys()).as(g.title()).allMatch(k -> k.name().startsWith(prefix)
                        || k == TarnKeys.DATANODE_REPLACE_AFTER && prefix.equals("tarn.namenode."));
            }
        }
        assertThat(grouped).doesNotHaveDuplicates().containsExactlyElementsOf(TarnKeys.ALL);
        assertThat(TarnKeys.GROUPS.get(0).keys()).as("read by every process").containsExactly(
                TarnKeys.NAMENODE_ADDRESS, TarnKeys.NAMENODE_MEMBERS, TarnKeys.BLOCK_SIZE, TarnKeys.TRANSPORT,
                TarnKeys.REPLICATION_DEFAULT);
    }

    @Test
    void docsDescribeWithoutQuotingMeasurements() {
        for (ConfigKey<?> key : TarnKeys.ALL) {
            assertThat(key.doc()).as(key.name()).doesNotContain("docs/performance.md").doesNotContainPattern(
                    "\\d+(\\.\\d+)?-?\\d*% |faster than|\\d+ ?(GB/s|MB/s|µs per)");
        }
    }
}
