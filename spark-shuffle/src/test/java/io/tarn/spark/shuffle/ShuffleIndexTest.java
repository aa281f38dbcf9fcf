package io.tarn.spark.shuffle;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The index of a map attempt: offsets round-trip, and anything else is refused with why. */
class ShuffleIndexTest {
    @Test
    void offsetsAreTheRunningSumOfTheLengths() throws IOException {
        byte[] index = ShuffleIndex.encode(new long[] {10, 0, 5, 7});
        assertThat(index).hasSize(ShuffleIndex.bytes(4));
        assertThat(ShuffleIndex.decode(index, "i")).containsExactly(0, 10, 10, 15, 22);
        assertThat(ShuffleIndex.decode(ShuffleIndex.encode(new long[0]), "empty")).containsExactly(0);
    }

    @Test
    void aChangedByteAnywhereIsRefused() {
        byte[] good = ShuffleIndex.encode(new long[] {1, 2, 3});
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x40;
            assertThatThrownBy(() -> ShuffleIndex.decode(bad, "idx")).as("byte %d", i).isInstanceOf(IOException.class)
                    .hasMessageStartingWith("idx ");
        }
    }

    @Test
    void shortOrForeignFilesAreRefusedSayingWhy() {
        byte[] good = ShuffleIndex.encode(new long[] {1, 2});
        assertThatThrownBy(() -> ShuffleIndex.decode(new byte[3], "f")).hasMessage("f is 3 bytes, too short to be a "
                + "shuffle index");
        byte[] cut = Arrays.copyOf(good, good.length - 8);
        assertThatThrownBy(() -> ShuffleIndex.decode(cut, "f")).hasMessageContaining("claims 2 partitions but is");
        byte[] foreign = good.clone();
        foreign[0] = 'X';
        assertThatThrownBy(() -> ShuffleIndex.decode(foreign, "f")).hasMessageContaining("is not a shuffle index");
        assertThatThrownBy(() -> ShuffleIndex.encode(new long[] {1, -1})).isInstanceOf(IllegalArgumentException.class);
    }
}
