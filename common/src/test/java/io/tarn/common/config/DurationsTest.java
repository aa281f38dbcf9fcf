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

class DurationsTest {

    @ParameterizedTest(name = "\"{0}\" = {1} ms")
    @CsvSource(delimiter = '|', value = {
            "0       | 0",
            "250     | 250",
            "250ms   | 250",
            "250MS   | 250",
            "10s     | 10000",
            "10S     | 10000",
            "5m      | 300000",
            "5M      | 300000",
            "1h      | 3600000",
            "24h     | 86400000",
            "0s      | 0",
            "' 7s '  | 7000",
            "'7 s'   | 7000",
            "'7 ms'  | 7",
            "'\t2m\t' | 120000",
    })
    void parsesUnits(String text, long millis) {
        assertThat(Durations.parseMillis(text)).isEqualTo(millis);
    }

    @Test
    void mIsMinutesAndMsIsMilliseconds() {
        assertThat(Durations.parseMillis("1m")).isEqualTo(60_000);
        assertThat(Durations.parseMillis("1ms")).isEqualTo(1);
    }

    @Test
    void negativeDurationsParseAndAreLeftToTheKeyRange() {
        assertThat(Durations.parseMillis("-5s")).isEqualTo(-5_000);
        assertThatThrownBy(() -> TarnKeys.RPC_TIMEOUT.parse("-5s"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("tarn.rpc.timeout = -5000: must be between");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "ms", "s", "m", "h", "1.5s", "1d", "5min", "1 h 2", "ten", "1sec", "0x10",
            "1hs", "s1"})
    void garbageIsRejectedNamingTheText(String text) {
        assertThatThrownBy(() -> Durations.parseMillis(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a duration: '" + text + "' (use a number with an optional ms, s, m or h suffix)");
    }

    @Test
    void overflowIsRejectedNotWrapped() {
        assertThat(Durations.parseMillis(Long.MAX_VALUE + "ms")).isEqualTo(Long.MAX_VALUE);
        long maxHours = Long.MAX_VALUE / 3_600_000;
        assertThat(Durations.parseMillis(maxHours + "h")).isEqualTo(maxHours * 3_600_000);
        assertThatThrownBy(() -> Durations.parseMillis((maxHours + 1) + "h"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a duration");
        assertThatThrownBy(() -> Durations.parseMillis(Long.MAX_VALUE + "s"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Durations.parseMillis("9223372036854775808"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void unitsMultiply(@ForAll @LongRange(min = 0, max = 1_000_000_000L) long n) {
        assertThat(Durations.parseMillis(n + "ms")).isEqualTo(n);
        assertThat(Durations.parseMillis(String.valueOf(n))).isEqualTo(n);
        assertThat(Durations.parseMillis(n + "s")).isEqualTo(n * 1_000);
        assertThat(Durations.parseMillis(n + "m")).isEqualTo(n * 60_000);
        assertThat(Durations.parseMillis(n + "h")).isEqualTo(n * 3_600_000);
    }
}
