package io.tarn.rpc.tcp;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keys calls are kept under in the client's in-flight map ({@link CallTable#slotKey}): one per
 * id, and consecutive ids scattered over the table. Netty's map indexes a key by the low bits of
 * its two halves folded together and probes linearly; consecutive ids as keys fill one contiguous
 * run of slots, and each removal of the oldest then walks the whole run.
 */
class InflightKeysTest {
    /** The slot Netty's LongObjectHashMap gives {@code key} in a table of {@code capacity} slots. */
    private static int slot(long key, int capacity) {
        return (int) (key ^ (key >>> 32)) & (capacity - 1);
    }

    @Test
    void everyIdHasAKeyOfItsOwn() {
        Set<Long> keys = new HashSet<>();
        long first = (1L << 32) - 500_000; // across the point where the id's upper half changes
        for (long id = first; id < first + 1_000_000; id++) {
            keys.add(CallTable.slotKey(id));
        }
        assertThat(keys).hasSize(1_000_000);
    }

    @Test
    void consecutiveIdsLandOutsideEachOthersSlots() {
        int capacity = 2048; // the map's table at 1,000 calls in flight
        for (long start : new long[] {1, 1_000_000, (1L << 32) - 300}) {
            int adjacent = 0;
            boolean[] used = new boolean[capacity];
            int collisions = 0;
            for (long id = start; id < start + 1000; id++) {
                int here = slot(CallTable.slotKey(id), capacity);
                int next = slot(CallTable.slotKey(id + 1), capacity);
                if (next == ((here + 1) & (capacity - 1))) {
                    adjacent++;
                }
                collisions += used[here] ? 1 : 0;
                used[here] = true;
            }
            assertThat(slot(start, capacity) + 1).as("plain ids would sit side by side")
                    .isEqualTo(slot(start + 1, capacity));
            assertThat(adjacent).as("ids from %d whose successor takes the next slot", start).isLessThan(20);
            assertThat(collisions).as("ids from %d sharing a home slot", start).isLessThan(400);
        }
    }
}
