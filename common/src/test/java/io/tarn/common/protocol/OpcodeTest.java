package io.tarn.common.protocol;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The operations table: what each operation is, as the code that sends and serves it relies on. */
class OpcodeTest {
    @Test
    void theTableHoldsEveryOperationOnceWithItsConstantsName() {
        int[] all = Opcode.all();
        assertThat(all).hasSize(50).isSorted().doesNotHaveDuplicates();
        Set<String> names = Arrays.stream(all).mapToObj(Opcode::name).collect(Collectors.toSet());
        assertThat(names).hasSize(all.length).noneMatch(n -> n.startsWith("OP_"));
        assertThat(Opcode.name(Opcode.ALLOCATE_BLOCKS)).isEqualTo("ALLOCATE_BLOCKS");
        assertThat(Opcode.name(Opcode.SC_WRITE)).isEqualTo("SC_WRITE");
        assertThat(Opcode.isKnown(Opcode.DIR_SNAPSHOT)).isTrue();
        assertThat(Opcode.isKnown(43)).isFalse();
        assertThat(Opcode.audience(43)).isNull();
    }

    @Test
    void onlyCallsThatChangeNothingAreReadOnly() {
        Set<String> readOnly = Arrays.stream(Opcode.all()).filter(Opcode::isReadOnly).mapToObj(Opcode::name)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(readOnly).containsExactlyInAnyOrder("GET_FILE", "LIST", "GET_BLOCKS", "GET_PARTITIONS",
                "WHERE_MOVED", "GET_REPLICATION",
                "DIR_SNAPSHOT", "CLUSTER_STATUS", "FSCK", "PING", "READ_BLOCK", "SC_READ", "GROUP_READ",
                "REPLICA_READ_INDEX");
        assertThat(Opcode.isReadOnly(-1)).isFalse();
        assertThat(Opcode.isReadOnly(65_535)).isFalse();
    }

    @Test
    void everyAudienceHasItsOperationsAndOnlyDataCallsAreNotMetadata() {
        assertThat(names(Audience.PEER)).containsExactlyInAnyOrder("DIR_MKDIR", "DIR_DELETE", "DIR_RENAME",
                "DIR_SET_ATTR", "DIR_SEAL", "DIR_UNSEAL", "FILE_ADOPT", "FILE_ADOPTION", "FREE_BLOCKS",
                "DIR_SNAPSHOT", "DIR_SET_REPLICATION", "DATANODE_UNREACHABLE", "FILE_ADOPTION_SETTLED");
        assertThat(names(Audience.DATANODE))
                .containsExactlyInAnyOrder("REGISTER_DATANODE", "HEARTBEAT", "DEREGISTER_DATANODE");
        assertThat(names(Audience.ADMIN)).containsExactlyInAnyOrder("CLUSTER_STATUS", "FSCK", "PING");
        assertThat(names(Audience.DATA)).containsExactlyInAnyOrder("WRITE_BLOCK", "READ_BLOCK", "SC_READ", "SC_WRITE",
                "GROUP_WRITE", "GROUP_READ");
        assertThat(names(Audience.REPLICA)).containsExactlyInAnyOrder("REPLICA_MESSAGE", "REPLICA_IMAGE_CHUNK",
                "REPLICA_READ_INDEX");
        assertThat(names(Audience.HANDSHAKE)).containsExactlyInAnyOrder("AUTH_HELLO", "AUTH_PROOF");
        for (Audience a : Audience.values()) {
            assertThat(a.daemonsOnly()).as(a.name())
                    .isEqualTo(a == Audience.PEER || a == Audience.DATANODE || a == Audience.REPLICA);
        }
        assertThat(names(Audience.CLIENT)).hasSize(20)
                .contains("GET_FILE", "CREATE", "WHERE_MOVED", "SET_REPLICATION", "REPLACE_BLOCK", "ONCE");
        for (int op : Opcode.all()) {
            assertThat(Opcode.isMetadata(op)).as(Opcode.name(op)).isEqualTo(Opcode.audience(op) != Audience.DATA);
        }
        assertThat(Opcode.isMetadata(43)).isFalse();
    }

    private static Set<String> names(Audience audience) {
        return Arrays.stream(Opcode.all()).filter(op -> Opcode.audience(op) == audience).mapToObj(Opcode::name)
                .collect(Collectors.toSet());
    }
}
