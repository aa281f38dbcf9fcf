package io.tarn.namenode.blocks;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/** tarn.namenode.datanode.expiry: a datanode dead for that long is forgotten. */
class DatanodeExpiryTest {
    private static final long C = 42;
    private static final long EXPIRY = 60_000;
    private final Fixture fx = new Fixture();

    @Test
    void aDatanodeDeadPastTheExpiryIsNoLongerListedItsDataDroppedAndItComesBackAsANewOne() throws Exception {
        fx.nn.datanodes().expireAfter(EXPIRY, 0);
        int a = fx.datanode(1, "ha", 11, 0, 1, 4, false).datanodeId();
        int b = fx.datanode(2, "hb", 22, 0, 1, 4, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        int on = fx.write(f, 0, C, "ha").datanodeId();
        assertThat(on).isEqualTo(a);
        int incarnation = fx.nn.datanodes().get(a).incarnation();

        fx.clock.advance(Fixture.DATANODE_TIMEOUT + 1);
        fx.nn.heartbeat(new HeartbeatRequest(b, 0, 2));
        fx.nn.runMaintenance();
        assertThat(fx.nn.clusterStatus().datanodes()).hasSize(2).filteredOn(d -> !d.alive()).hasSize(1);

        fx.clock.advance(EXPIRY);
        fx.nn.heartbeat(new HeartbeatRequest(b, 0, 2));
        fx.nn.runMaintenance();
        assertThat(fx.nn.datanodes().get(a).expired()).isTrue();
        assertThat(fx.nn.datanodes().get(b).expired()).as("alive: heartbeats").isFalse();
        assertThat(fx.nn.clusterStatus().datanodes()).singleElement().satisfies(d -> assertThat(d.id()).isEqualTo(b));
        assertThat(fx.nn.datanodes().get(a).incarnation()).as("its data dropped: its blocks lost for good")
                .isEqualTo(incarnation + 1);
        assertThat(failsWith(ErrorCode.UNKNOWN_DATANODE, () -> fx.nn.heartbeat(new HeartbeatRequest(a, 0, 1))))
                .contains("forgotten");

        // Its storage comes back, even saying its data is intact: a new datanode, with nothing of the old.
        int again = fx.datanode(1, "ha", 11, 0, 1, 4, true).datanodeId();
        assertThat(again).isNotEqualTo(a);
        assertThat(fx.nn.clusterStatus().datanodes()).hasSize(2);
        assertThat(fx.nn.datanodes().get(again).freeBlocks()).isEqualTo(4);
    }

    @Test
    void theExpiryIsNeverShorterThanTheReplacementOfGroupMembers() throws Exception {
        fx.nn.datanodes().expireAfter(1_000, 120_000);
        int a = fx.datanode(1, "ha", 11, 0, 1, 4, false).datanodeId();
        fx.clock.advance(Fixture.DATANODE_TIMEOUT + 1);
        fx.nn.runMaintenance();
        fx.clock.advance(100_000);
        fx.nn.runMaintenance();
        assertThat(fx.nn.datanodes().get(a).expired()).isFalse();
        fx.clock.advance(20_000);
        fx.nn.runMaintenance();
        assertThat(fx.nn.datanodes().get(a).expired()).isTrue();
    }
}
