package io.tarn.namenode.blocks;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A datanode's free list with regions reserved for block groups, under any interleaving of block
 * allocations, frees, reservations and releases: no place is handed out twice, a reserved region
 * never holds an unreplicated block, generations only grow, and the free count adds up.
 */
class RegionReservationPropertiesTest {
    private static final int REGIONS = 4;
    private static final int BLOCKS = 3;
    private static final int BLOCK_SIZE = 4096;

    @Property(tries = 300)
    void placesAreNeverHandedOutTwiceAndReservedRegionsStayOutOfTheFreeList(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 99) Integer> steps) {
        DatanodeInfo dn = new DatanodeInfo(1, new StorageId(0, 1), "h", 1, 0);
        dn.reset(0, (long) BLOCKS * BLOCK_SIZE, RegionSet.all(REGIONS), BLOCK_SIZE);
        List<Block> held = new ArrayList<>();
        Map<Integer, int[]> reserved = new HashMap<>();
        Map<Long, Integer> lastGeneration = new HashMap<>();
        for (int step : steps) {
            int kind = step % 4;
            if (kind <= 1) {
                Block b = dn.take();
                if (b != null) {
                    assertThat(reserved).as("a reserved region holds no block").doesNotContainKey(b.regionId());
                    long place = (long) b.regionId() * BLOCKS + b.regionBlock();
                    assertThat(held).noneMatch(h -> h.regionId() == b.regionId() && h.regionBlock() == b.regionBlock());
                    Integer before = lastGeneration.put(place, b.generation());
                    assertThat(b.generation()).isGreaterThan(before == null ? 0 : before);
                    held.add(b);
                }
            } else if (kind == 2 && !held.isEmpty()) {
                assertThat(dn.release(held.remove(step % held.size()))).isTrue();
            } else if (kind == 3) {
                if (!reserved.isEmpty() && step % 2 == 0) {
                    int region = reserved.keySet().iterator().next();
                    int[] gens = reserved.remove(region);
                    for (int s = 0; s < BLOCKS; s++) {
                        gens[s] += 5; // the group allocated its slots meanwhile
                        lastGeneration.merge((long) region * BLOCKS + s, gens[s], Math::max);
                    }
                    dn.releaseRegion(region, gens);
                } else {
                    Set<Integer> busy = new HashSet<>();
                    held.forEach(h -> busy.add(h.regionId()));
                    DatanodeInfo.RegionReservation r = dn.reserveRegion();
                    if (r != null) {
                        assertThat(busy).as("only a wholly free region").doesNotContain(r.regionId());
                        assertThat(reserved).doesNotContainKey(r.regionId());
                        reserved.put(r.regionId(), r.generations().clone());
                    } else {
                        assertThat(busy.size() + reserved.size()).as("every region in use").isEqualTo(REGIONS);
                    }
                }
            }
            assertThat(dn.freeBlocks()).isEqualTo((long) REGIONS * BLOCKS - held.size() - reserved.size() * BLOCKS);
        }
    }
}
