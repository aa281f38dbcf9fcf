package io.tarn.tools.chaos;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** Values read back whole decode to themselves; any damage decodes to a value no one wrote. */
class ValuesTest {
    @Test
    void wholeValueDecodesToItself() {
        byte[] bytes = Values.encode("c1-k7-beef", 6000);
        assertThat(bytes).hasSize(6000);
        assertThat(Values.decode(bytes, 6000)).isEqualTo("c1-k7-beef");
        assertThat(Values.encode("c1-k7-beef", 6000)).isEqualTo(bytes);
    }

    @Test
    void truncatedFlippedOrForeignBytesDecodeToCorruptTokens() {
        byte[] bytes = Values.encode("c1-k7-beef", 6000);
        assertThat(Values.decode(Arrays.copyOf(bytes, 4096), 6000)).startsWith("corrupt:4096:");
        byte[] flipped = bytes.clone();
        flipped[5000] ^= 1;
        assertThat(Values.decode(flipped, 6000)).startsWith("corrupt:6000:");
        assertThat(Values.decode(new byte[6000], 6000)).startsWith("corrupt:6000:");
        assertThat(Values.decode(Values.encode("other", 6000), 6000)).isEqualTo("other");
    }
}
