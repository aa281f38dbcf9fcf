package io.tarn.common.config;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DataSizeTest {

    private static final long K = 1L << 10;
    private static final long M = 1L << 20;
    private static final long G = 1L << 30;
    private static final long T = 1L << 40;

    @Test
    void plainNumbersAreBytes() {
        assertThat(DataSize.parse("0")).isZero();
        assertThat(DataSize.parse("512")).isEqualTo(512);
        assertThat(DataSize.parse("1023")).isEqualTo(1023);
        assertThat(DataSize.parse(String.valueOf(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
    }

    @ParameterizedTest(name = "\"{0}\" = {1} bytes")
    @CsvSource(delimiter = '|', value = {
            "1k     | 1024",
            "64k    | 65536",
            "1m     | 1048576",
            "2g     | 2147483648",
            "3t     | 3298534883328",
            "1K     | 1024",
            "1M     | 1048576",
            "1G     | 1073741824",
            "1T     | 1099511627776",
            "4kb    | 4096",
            "4KB    | 4096",
            "4kib   | 4096",
            "4KiB   | 4096",
            "4KIB   | 4096",
            "16mb   | 16777216",
            "16MiB  | 16777216",
            "1gb    | 1073741824",
            "1gib   | 1073741824",
            "1tb    | 1099511627776",
            "1tib   | 1099511627776",
            "7b     | 7",
            "7B     | 7",
            "0k     | 0",
    })
    void suffixesAreBinaryMultiples(String text, long expected) {
        assertThat(DataSize.parse(text)).isEqualTo(expected);
    }

    @Test
    void surroundingAndInnerWhitespaceIsIgnored() {
        assertThat(DataSize.parse("  64k  ")).isEqualTo(64 * K);
        assertThat(DataSize.parse("\t1m\n")).isEqualTo(M);
        assertThat(DataSize.parse("64 k")).isEqualTo(64 * K);
        assertThat(DataSize.parse("64 kb")).isEqualTo(64 * K);
        assertThat(DataSize.parse("64\tKiB")).isEqualTo(64 * K);
        assertThat(DataSize.parse(" 2 g ")).isEqualTo(2 * G);
    }

    /** A space before a plain byte suffix is accepted, as before k/m/g. */
    @Test
    void spaceBeforePlainByteSuffixIsAccepted() {
        assertThat(DataSize.parse("512 b")).isEqualTo(512);
        assertThat(DataSize.parse("512 B")).isEqualTo(512);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "-1k", "-0x1", " -5 m", "-9223372036854775808"})
    void negativeSizesAreRejected(String text) {
        assertThatThrownBy(() -> DataSize.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(text);
    }

    @Test
    void negativeMessageSaysNegative() {
        assertThatThrownBy(() -> DataSize.parse("-1k"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("size must not be negative: '-1k'");
    }

    @Test
    void largestValuesPerSuffixAreAcceptedAndOneMoreOverflows() {
        assertThat(DataSize.parse((Long.MAX_VALUE >> 10) + "k")).isEqualTo((Long.MAX_VALUE >> 10) << 10);
        assertThat(DataSize.parse((Long.MAX_VALUE >> 40) + "t")).isEqualTo((Long.MAX_VALUE >> 40) << 40);
        assertThat(DataSize.parse("8388607t")).isEqualTo(8388607L * T);

        assertThatThrownBy(() -> DataSize.parse("8388608t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("size too large: '8388608t'");
        assertThatThrownBy(() -> DataSize.parse(((Long.MAX_VALUE >> 10) + 1) + "k"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("size too large");
        assertThatThrownBy(() -> DataSize.parse((Long.MAX_VALUE >> 20) + 1 + "m"))
                .hasMessageStartingWith("size too large");
        assertThatThrownBy(() -> DataSize.parse((Long.MAX_VALUE >> 30) + 1 + "g"))
                .hasMessageStartingWith("size too large");
    }

    @Test
    void numbersBeyondLongAreRejected() {
        assertThatThrownBy(() -> DataSize.parse("9223372036854775808"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a size: '9223372036854775808'");
        assertThatThrownBy(() -> DataSize.parse("99999999999999999999k"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a size");
    }

    @ParameterizedTest
    @ValueSource(strings = {"k", "kb", "kib", "abc", "1.5g", "1,5g", "0x10", "1e3", "1 2k", "1kk", "1q", "5mm",
            "1 k b", "twelve", "1p", "1kbb", "--1", "1-"})
    void garbageIsRejectedWithTheOriginalText(String text) {
        assertThatThrownBy(() -> DataSize.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "b", "B", "ib", " iB "})
    void emptySizesAreRejected(String text) {
        assertThatThrownBy(() -> DataSize.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("empty size");
    }

    @ParameterizedTest(name = "{0} bytes -> \"{1}\"")
    @CsvSource(delimiter = '|', value = {
            "0                   | 0",
            "1                   | 1",
            "1023                | 1023",
            "1024                | 1k",
            "1536                | 1536",
            "4096                | 4k",
            "1047552             | 1023k",
            "1048576             | 1m",
            "1073741824          | 1g",
            "3221225472          | 3g",
            "1099511627776       | 1t",
            "1125899906842624    | 1024t",
            "9223372036854775807 | 9223372036854775807",
    })
    void formatUsesTheLargestExactSuffix(long bytes, String expected) {
        assertThat(DataSize.format(bytes)).isEqualTo(expected);
    }

    @Property
    void formatThenParseIsIdentity(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long bytes) {
        assertThat(DataSize.parse(DataSize.format(bytes))).isEqualTo(bytes);
    }

    @Property
    void powerOfTwoMultiplesRoundTrip(@ForAll @LongRange(min = 0, max = 1L << 22) long n) {
        for (int shift = 0; shift <= 40; shift += 10) {
            long bytes = n << shift;
            assertThat(DataSize.parse(DataSize.format(bytes))).isEqualTo(bytes);
        }
    }

    @Property
    void kSuffixMultipliesBy1024(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE >> 10) long n) {
        assertThat(DataSize.parse(n + "k")).isEqualTo(n * K);
        assertThat(DataSize.parse(n + "KiB")).isEqualTo(n * K);
    }
}
