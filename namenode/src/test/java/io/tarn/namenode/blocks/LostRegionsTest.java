package io.tarn.namenode.blocks;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.LostRegion;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The regions a datanode's heartbeats list as lost (taken out of service because their memory is
 * gone): their allocated blocks are lost, their free blocks are never handed out, a block freed
 * there does not go back on the free list, and a region no longer listed serves again.
 */
class LostRegionsTest {
    private static final long C = 42;
    private final Fixture fx = new Fixture();

    private void heartbeat(int datanodeId, List<LostRegion> lost) throws Exception {
        fx.nn.heartbeat(new HeartbeatRequest(datanodeId, 0, 1, List.of(), List.of(), List.of(), lost));
    }

    @Test
    void aLostRegionsBlocksAreLostAndNothingIsAllocatedThereUntilItServesAgain() throws Exception {
        int a = fx.datanode(1, "h", 1, 0, 3, 2, false).datanodeId();
        DatanodeInfo dn = fx.nn.datanodes().get(a);
        long f = fx.create("/f", C).fileId();
        BlockRef first = fx.write(f, 0, C);
        BlockRef second = fx.write(f, 1, C);
        assertThat(second.regionId()).as("blocks are handed out region by region").isEqualTo(first.regionId());
        long g = fx.create("/g", C).fileId();
        BlockRef other = fx.write(g, 0, C);
        assertThat(other.regionId()).isNotEqualTo(first.regionId());
        assertThat(dn.freeBlocks()).isEqualTo(3);

        heartbeat(a, List.of(new LostRegion(first.regionId(), "region-00000 was cut to 0 bytes")));

        assertThat(dn.regionsOutOfService()).isEqualTo(1);
        assertThat(dn.lostBlocks()).isEqualTo(2);
        assertThat(dn.freeBlocks()).as("the free slots of other regions only").isEqualTo(3);
        String msg = failsWith(ErrorCode.DATA_LOST, () -> fx.read(f, 0));
        assertThat(msg).contains("block 0 of '/f' is lost").contains("took the block's region " + first.regionId()
                + " out of service").contains("region-00000 was cut to 0 bytes");
        assertThat(fx.read(g, 0).regionId()).isEqualTo(other.regionId());
        heartbeat(a, List.of(new LostRegion(first.regionId(), "region-00000 was cut to 0 bytes")));
        assertThat(dn.freeBlocks()).as("a repeated report changes nothing").isEqualTo(3);

        // Deleting the file frees its slots, which stay off the free list with their region.
        fx.nn.namespace().delete("/f", false);
        assertThat(dn.lostBlocks()).isZero();
        assertThat(dn.freeBlocks()).isEqualTo(3);
        Set<Integer> regions = new HashSet<>();
        long h = fx.create("/h", C).fileId();
        for (int i = 0; i < 3; i++) {
            regions.add(fx.write(h, i, C).regionId());
        }
        assertThat(regions).doesNotContain(first.regionId());
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> fx.write(h, 3, C))).contains("no free block");

        // The datanode restarted and made the region whole: it no longer lists it.
        heartbeat(a, List.of());
        assertThat(dn.regionsOutOfService()).isZero();
        assertThat(dn.freeBlocks()).isEqualTo(2);
        assertThat(fx.write(h, 3, C).regionId()).isEqualTo(first.regionId());
    }
}
