package io.tarn.namenode.blocks;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/** DEREGISTER_DATANODE: a datanode that stops cleanly is dead at once, with or without its data. */
class DeregisterTest {
    private static final long C = 42;
    private final Fixture fx = new Fixture();

    /** Deregisters the datanode registered by {@link Fixture#datanode} with storage id (0, storageId). */
    private void deregister(int datanodeId, long storageId, boolean dataKept) throws Exception {
        fx.nn.deregister(new DeregisterRequest(datanodeId, 0, storageId, dataKept));
    }

    @Test
    void aDeregisteredDatanodeIsDeadAtOnceAndItsBlocksNameItAsStopped() throws Exception {
        int a = fx.datanode(1, "ha", 11, 0, 1, 4, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        fx.write(f, 0, C);

        deregister(a, 1, true);

        DatanodeInfo dn = fx.nn.datanodes().get(a);
        assertThat(dn.alive()).isFalse();
        assertThat(dn.liveness()).isEqualTo(DatanodeInfo.Liveness.STOPPED);
        assertThat(fx.nn.clusterStatus().datanodes()).singleElement().satisfies(d -> assertThat(d.alive()).isFalse());
        String msg = failsWith(ErrorCode.DATANODE_DEAD, () -> fx.read(f, 0));
        assertThat(msg).contains("/f").contains("datanode " + a).contains("ha:11").contains("stopped")
                .contains("shut down").doesNotContain("silent");
        assertThat(failsWith(ErrorCode.DATANODE_DEAD, () -> fx.write(f, 0, C))).contains("stopped");
        // Its blocks stay allocated: it may come back with them.
        assertThat(dn.freeBlocks()).isEqualTo(3);
    }

    @Test
    void aDeregisteredDatanodeGetsNoNewBlocks() throws Exception {
        int a = fx.datanode(1, "ha", 11, 0, 1, 10, false).datanodeId();
        int b = fx.datanode(2, "hb", 22, 0, 1, 10, false).datanodeId();
        deregister(a, 1, true);
        long f = fx.create("/f", C).fileId();
        for (int i = 0; i < 6; i++) {
            assertThat(fx.write(f, i, C, "ha").datanodeId()).as("block %d", i).isEqualTo(b);
        }
        deregister(b, 2, false);
        long g = fx.create("/g", C).fileId();
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> fx.write(g, 0, C))).contains("0 of 2 datanodes alive");
    }

    @Test
    void stoppedStaysStoppedPastTheLivenessTimeout() throws Exception {
        int a = fx.datanode(1, "ha", 11, 0, 1, 4, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        fx.write(f, 0, C);
        deregister(a, 1, true);
        fx.clock.advance(Fixture.DATANODE_TIMEOUT + 1);
        fx.nn.runMaintenance();
        assertThat(fx.nn.datanodes().get(a).liveness()).isEqualTo(DatanodeInfo.Liveness.STOPPED);
        assertThat(failsWith(ErrorCode.DATANODE_DEAD, () -> fx.read(f, 0)))
                .contains("shut down " + (Fixture.DATANODE_TIMEOUT + 1) + " ms ago");
    }

    @Test
    void withoutItsDataItsBlocksAreLostAndItsRegionsFreeWithoutDoubleFree() throws Exception {
        int a = fx.datanode(1, "h", 1, 0, 1, 2, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        BlockRef lost = fx.write(f, 0, C);
        DatanodeInfo dn = fx.nn.datanodes().get(a);
        assertThat(dn.freeBlocks()).isEqualTo(1);

        deregister(a, 1, false);

        assertThat(dn.alive()).isFalse();
        assertThat(dn.freeBlocks()).as("its regions are free for its next registration").isEqualTo(2);
        assertThat(failsWith(ErrorCode.DATA_LOST, () -> fx.read(f, 0)))
                .contains("datanode " + a).contains("h:1").contains("without keeping its data");
        // Deleting the file with the lost block frees nothing a second time.
        fx.nn.namespace().delete("/f", false);
        assertThat(dn.freeBlocks()).isEqualTo(2);

        // The same storage comes back (without data, as after a stop that did not keep it).
        RegisterResponse again = fx.datanode(1, "h", 1, 0, 1, 2, false);
        assertThat(again.datanodeId()).isEqualTo(a);
        assertThat(again.resetGenerations()).as("namenode generations stay valid").isFalse();
        assertThat(dn.alive()).isTrue();
        long g = fx.create("/g", C).fileId();
        BlockRef first = fx.write(g, 0, C);
        BlockRef second = fx.write(g, 1, C);
        assertThat(dn.freeBlocks()).isZero();
        assertThat(List.of(first, second)).anyMatch(r -> r.regionId() == lost.regionId()
                && r.blockIndex() == lost.blockIndex() && r.generation() > lost.generation());
        fx.nn.namespace().delete("/g", false);
        assertThat(dn.freeBlocks()).isEqualTo(2);
    }

    @Test
    void aRegistrationWithItsKeptDataRevivesItWithItsBlocks() throws Exception {
        int a = fx.datanode(1, "h", 1, 0, 1, 4, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        BlockRef before = fx.write(f, 0, C);
        deregister(a, 1, true);
        failsWith(ErrorCode.DATANODE_DEAD, () -> fx.read(f, 0));

        RegisterResponse again = fx.datanode(1, "h", 5, 0, 1, 4, true);

        assertThat(again.datanodeId()).isEqualTo(a);
        assertThat(again.resetGenerations()).isFalse();
        BlockRef after = fx.read(f, 0);
        assertThat(after.address()).isEqualTo("h:5");
        assertThat(after.generation()).isEqualTo(before.generation());
        assertThat(fx.write(f, 1, C).datanodeId()).as("allocated on again").isEqualTo(a);
        assertThat(fx.nn.datanodes().get(a).freeBlocks()).isEqualTo(2);
    }

    @Test
    void onlyARegistrationRevivesIt() throws Exception {
        int a = fx.datanode(1, "h", 1, 0, 1, 4, false).datanodeId();
        deregister(a, 1, true);
        assertThat(failsWith(ErrorCode.UNKNOWN_DATANODE, () -> fx.nn.datanodes().heartbeat(a, new StorageId(0, 1))))
                .contains("datanode " + a).contains("register again");
        assertThat(fx.nn.datanodes().get(a).liveness()).isEqualTo(DatanodeInfo.Liveness.STOPPED);
    }

    @Test
    void deregisteringTwiceIsHarmless() throws Exception {
        int a = fx.datanode(1, "h", 1, 0, 1, 2, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        fx.write(f, 0, C);
        deregister(a, 1, false);
        deregister(a, 1, false);
        DatanodeInfo dn = fx.nn.datanodes().get(a);
        assertThat(dn.freeBlocks()).isEqualTo(2);
        failsWith(ErrorCode.DATA_LOST, () -> fx.read(f, 0));
        fx.nn.namespace().delete("/f", false);
        assertThat(dn.freeBlocks()).isEqualTo(2);
    }

    @Test
    void anUnknownIdOrStorageIsRefusedAndChangesNothing() throws Exception {
        int a = fx.datanode(1, "h", 1, 0, 1, 4, false).datanodeId();
        long f = fx.create("/f", C).fileId();
        fx.write(f, 0, C);
        assertThat(failsWith(ErrorCode.UNKNOWN_DATANODE, () -> deregister(a + 7, 1, false)))
                .contains("datanode id " + (a + 7));
        failsWith(ErrorCode.UNKNOWN_DATANODE, () -> deregister(a, 99, false));
        DatanodeInfo dn = fx.nn.datanodes().get(a);
        assertThat(dn.alive()).isTrue();
        assertThat(dn.freeBlocks()).isEqualTo(3);
        assertThat(fx.read(f, 0).datanodeId()).isEqualTo(a);
    }
}
