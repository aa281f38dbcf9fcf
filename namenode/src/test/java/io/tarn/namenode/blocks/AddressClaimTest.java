package io.tarn.namenode.blocks;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A registration of another storage at the address of a live datanode: refused while that one
 * heartbeats (a false claim: two processes cannot serve one address), accepted once it has been
 * silent for twice the heartbeat interval (it restarted without its memory), which marks it dead.
 */
class AddressClaimTest {
    private static final long C = 42;
    private final Fixture fx = new Fixture();

    @Test
    void anotherStorageCannotTakeTheAddressOfADatanodeThatHeartbeats() throws Exception {
        int a = fx.datanode(1, "h", 11, 0, 1, 4, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        fx.write(f, 0, C);

        fx.clock.advance(1_500);
        fx.nn.heartbeat(new HeartbeatRequest(a, 0, 1));
        fx.clock.advance(500);
        String msg = failsWith(ErrorCode.INVALID_ARGUMENT, () -> fx.datanode(2, "h", 11, 0, 1, 4, false));
        assertThat(msg).contains("h:11 is the address of datanode " + a).contains("heard 500 ms ago")
                .contains("once it has been silent for 2000 ms");
        assertThat(fx.nn.datanodes().get(a).alive()).isTrue();
        assertThat(fx.nn.clusterStatus().datanodes()).hasSize(1);
        assertThat(fx.read(f, 0).datanodeId()).isEqualTo(a);

        // The same storage at its own address, and another storage at another port, register as usual.
        assertThat(fx.datanode(1, "h", 11, 0, 1, 4, true).datanodeId()).isEqualTo(a);
        assertThat(fx.datanode(3, "h", 12, 0, 1, 4, false).datanodeId()).isNotEqualTo(a);
    }

    @Test
    void afterTheGraceTheNewStorageRegistersAndTheSilentOneIsDeadAtOnce() throws Exception {
        int a = fx.datanode(1, "h", 11, 0, 1, 4, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        fx.write(f, 0, C);
        fx.clock.advance(2_000);
        int b = fx.datanode(2, "h", 11, 0, 1, 4, false).datanodeId();
        assertThat(b).isNotEqualTo(a);
        assertThat(fx.nn.datanodes().get(a).alive()).as("replaced at its address").isFalse();
        assertThat(failsWith(ErrorCode.DATANODE_DEAD, () -> fx.read(f, 0))).contains("datanode " + a);
        long g = fx.create("/g", C).fileId();
        assertThat(fx.write(g, 0, C).datanodeId()).isEqualTo(b);
    }
}
