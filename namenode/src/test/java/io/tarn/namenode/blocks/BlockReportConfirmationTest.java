package io.tarn.namenode.blocks;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.AdminProtocol.BlockReport;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A block report taken while writes go on (a namenode restarting, a group electing its leader) may
 * show a slot behind its block: the write was on its way. Such a block counts as lost only when the
 * next report, which the namenode asks for in its next heartbeat answer, still shows it behind; a
 * slot ahead of its block (written again since) is lost at once.
 */
class BlockReportConfirmationTest {
    private static final long C = 42;
    private static final int REGIONS = 2;
    private static final int PER_REGION = 4;
    private final Fixture fx = new Fixture();

    /** Datanode 1's intact registration with a report whose slots hold {@code generations}. */
    private void register(int[] generations) throws Exception {
        fx.nn.register(new RegisterRequest(0, 1, "h", 1, 0, (long) PER_REGION * Fixture.BLOCK, REGIONS, 0, 1, true,
                false, new BlockReport(Fixture.BLOCK, generations)));
    }

    private boolean heartbeatAsksForAReport(int datanodeId) throws Exception {
        return fx.nn.heartbeat(new HeartbeatRequest(datanodeId, 0, 1)).reportAgain();
    }

    @Test
    void aSlotBehindCountsAsLostOnlyWhenTheNextReportStillShowsIt() throws Exception {
        int dn = fx.datanode(1, "h", 1, 0, REGIONS, PER_REGION, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        BlockRef first = fx.write(f, 0, C);
        BlockRef second = fx.write(f, 1, C);
        fx.nn.files().close(f, C, 2L * Fixture.BLOCK);
        int[] slots = new int[REGIONS * PER_REGION];
        slots[first.blockIndex()] = first.generation();
        slots[second.blockIndex()] = second.generation() - 1; // its write not landed yet when the report was taken

        register(slots);
        assertThat(fx.read(f, 1).generation()).as("not lost on one report").isEqualTo(second.generation());
        assertThat(heartbeatAsksForAReport(dn)).isTrue();
        assertThat(heartbeatAsksForAReport(dn)).as("asked once").isFalse();

        // The write landed meanwhile: the next report clears it.
        slots[second.blockIndex()] = second.generation();
        register(slots);
        assertThat(heartbeatAsksForAReport(dn)).isFalse();
        assertThat(fx.read(f, 1).generation()).isEqualTo(second.generation());

        // Behind again, and still behind in the report asked for: lost.
        slots[second.blockIndex()] = 0;
        register(slots);
        assertThat(heartbeatAsksForAReport(dn)).isTrue();
        register(slots);
        assertThat(failsWith(ErrorCode.DATA_LOST, () -> fx.read(f, 1))).contains("block 1 of '/f' is lost")
                .contains("block report shows generation 0");
        assertThat(fx.read(f, 0).generation()).isEqualTo(first.generation());
    }

    @Test
    void aSlotAheadOfItsBlockIsLostAtOnce() throws Exception {
        int dn = fx.datanode(1, "h", 1, 0, REGIONS, PER_REGION, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        BlockRef only = fx.write(f, 0, C);
        fx.nn.files().close(f, C, Fixture.BLOCK);
        int[] slots = new int[REGIONS * PER_REGION];
        slots[only.blockIndex()] = only.generation() + 3;

        register(slots);
        assertThat(heartbeatAsksForAReport(dn)).isFalse();
        assertThat(failsWith(ErrorCode.DATA_LOST, () -> fx.read(f, 0)))
                .contains("block report shows generation " + (only.generation() + 3));
    }
}
