package io.tarn.namenode.blocks;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Partitions;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.ManualClock;
import io.tarn.namenode.NamenodeService;
import io.tarn.namenode.Partitioning;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A namenode that is partition 1 of 2 manages the odd regions of each datanode: it allocates only
 * there, hands out the real region ids, and refuses a datanode that offers it another share.
 */
class RegionShareTest {
    private static final int BLOCK = 4096;
    private static final int BLOCKS_PER_REGION = 2;
    private static final long CLIENT = 42;

    private final NamenodeService nn = new NamenodeService(new ManualClock(), BLOCK, 60_000, 10_000,
            BlockTokens.random(), new Partitioning(1, List.of(new HostPort("nn0", 1), new HostPort("nn1", 2))));

    /** Registers storage (0, 1) with {@code count} regions from {@code first} every {@code stride}. */
    private RegisterResponse register(int count, int first, int stride, boolean intact) throws Exception {
        return nn.register(new RegisterRequest(0, 1, "dn", 7, 0, (long) BLOCKS_PER_REGION * BLOCK, count, first,
                stride, intact));
    }

    /** Creates a file in the root whose name starts with {@code prefix} and belongs to this partition. */
    private long newFile(String prefix) throws Exception {
        String name = prefix;
        for (int i = 0; Partitions.ofName(name, 2) != 1; i++) {
            name = prefix + "-" + i;
        }
        return nn.create(new CreateRequest("/" + name, FileType.FILE, 0, 0, CLIENT, "", Ownership.UNSPECIFIED))
                .fileId();
    }

    /** Allocates blocks 0..n-1 of a new file. */
    private List<BlockRef> fill(long f, int n) throws Exception {
        List<BlockRef> refs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            refs.add(nn.files().getBlock(f, i, true, CLIENT, ""));
        }
        return refs;
    }

    private static List<String> places(List<BlockRef> refs) {
        return refs.stream().map(r -> r.regionId() + "/" + r.blockIndex()).sorted().toList();
    }

    @Test
    void allocatesOnlyFromItsShareAndHandsOutTheRealRegionIds() throws Exception {
        int id = register(4, 1, 2, false).datanodeId();
        DatanodeInfo dn = nn.datanodes().get(id);
        assertThat(dn.regions()).isEqualTo(new RegionSet(1, 2, 4));
        assertThat(dn.capacityBlocks()).isEqualTo(8);

        long f = newFile("f");
        List<BlockRef> refs = fill(f, 8);
        assertThat(places(refs)).containsExactly("1/0", "1/1", "3/0", "3/1", "5/0", "5/1", "7/0", "7/1");
        for (BlockRef r : refs) {
            assertThat(nn.tokens().check(r.token(), r.tokenStamp(), id, r.regionId(), r.blockIndex(), r.generation(),
                    BlockTokens.WRITE)).as("the token names the real region").isEqualTo(BlockTokens.Verdict.VALID);
        }
        long g = newFile("g");
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> nn.files().getBlock(g, 0, true, CLIENT, "")))
                .contains("no free block");

        nn.files().close(f, CLIENT, 0);
        assertThat(dn.freeBlocks()).as("freed back by their real ids").isEqualTo(8);
        List<BlockRef> again = fill(g, 8);
        assertThat(places(again)).isEqualTo(places(refs));
        assertThat(again).allMatch(r -> r.generation() == 2);
    }

    @Test
    void anIntactReturnKeepsTheBlocksOnlyWithTheSameShare() throws Exception {
        int id = register(4, 1, 2, false).datanodeId();
        long f = newFile("f");
        BlockRef before = nn.files().getBlock(f, 0, true, CLIENT, "");

        RegisterResponse same = register(4, 1, 2, true);
        assertThat(same.datanodeId()).isEqualTo(id);
        assertThat(same.resetGenerations()).isFalse();
        assertThat(nn.files().getBlock(f, 0, false, 0, "").generation()).isEqualTo(before.generation());

        RegisterResponse fewer = register(3, 1, 2, true);
        assertThat(fewer.resetGenerations()).as("another share: the namenode's generations restart").isTrue();
        assertThat(nn.datanodes().get(id).regions()).isEqualTo(new RegionSet(1, 2, 3));
        failsWith(ErrorCode.DATA_LOST, () -> nn.files().getBlock(f, 0, false, 0, ""));
    }

    @Test
    void aShareOfAnotherPartitionIsRefusedNamingTheConfiguration() {
        String msg = failsWith(ErrorCode.WRONG_PARTITION, () -> register(4, 0, 2, false));
        assertThat(msg).contains("dn:7").contains("namenode 1 (nn1:2)").contains("r mod 2 = 1")
                .contains("tarn.namenode.address");
        assertThat(failsWith(ErrorCode.WRONG_PARTITION, () -> register(3, 1, 3, false)))
                .as("a datanode counting three namenodes").contains("2 namenode(s)");
        assertThat(nn.datanodes().size()).isZero();
    }

    @Test
    void regionSetsMapLocalIndexesToRealIds() {
        RegionSet odd = new RegionSet(1, 2, 4);
        assertThat(List.of(odd.id(0), odd.id(3))).containsExactly(1, 7);
        assertThat(List.of(odd.local(1), odd.local(7), odd.local(2), odd.local(9), odd.local(-1), odd.local(0)))
                .containsExactly(0, 3, -1, -1, -1, -1);
        assertThat(odd).hasToString("regions 1, 3, .., 7 (4)");
        assertThat(RegionSet.all(2)).hasToString("regions 0, 1 (2)");
        assertThat(new RegionSet(5, 3, 1)).hasToString("region 5");
        assertThat(RegionSet.all(0)).hasToString("no regions");
        assertThatThrownBy(() -> new RegionSet(0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RegionSet(Integer.MAX_VALUE, 2, 2)).isInstanceOf(IllegalArgumentException.class);
    }
}
