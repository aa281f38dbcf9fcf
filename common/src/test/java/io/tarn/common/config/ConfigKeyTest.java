package io.tarn.common.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigKeyTest {

    // ------------------------------------------------------------------ bytes

    @Test
    void bytesKeyParsesSizesAndChecksItsRange() {
        ConfigKey<Long> k = ConfigKey.bytes("test.size", 1024, 4096, 1L << 30, "doc");
        assertThat(k.name()).isEqualTo("test.size");
        assertThat(k.unit()).isEqualTo("bytes");
        assertThat(k.doc()).isEqualTo("doc");
        assertThat(k.defaultValue()).isEqualTo(1024L);
        assertThat(k).hasToString("test.size");

        assertThat(k.parse("4k")).isEqualTo(4096L);
        assertThat(k.parse("1g")).isEqualTo(1L << 30);
        assertThat(k.format(8192L)).isEqualTo("8k");

        assertThatThrownBy(() -> k.parse("2k"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.size = 2k: must be between 4k and 1g");
        assertThatThrownBy(() -> k.parse("2g"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.size = 2g: must be between 4k and 1g");
    }

    @Test
    void bytesOrZeroKeyTakesZeroOrASizeInItsRange() {
        ConfigKey<Long> k = ConfigKey.bytesOrZero("test.buffer", 0, 64 * 1024, 1L << 20, "doc");
        assertThat(k.parse("0")).isZero();
        assertThat(k.parse("64k")).isEqualTo(64L * 1024);
        assertThat(k.parse("1m")).isEqualTo(1L << 20);
        assertThatThrownBy(() -> k.parse("16k"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.buffer = 16k: must be 0 or between 64k and 1m");
        assertThatThrownBy(() -> k.parse("2m"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.buffer = 2m: must be 0 or between 64k and 1m");
    }

    @Test
    void replicationDefaultTakesOneOrThreeAndNamesTheChoicesOtherwise() {
        ConfigKey<Integer> k = TarnKeys.REPLICATION_DEFAULT;
        assertThat(k.defaultValue()).isEqualTo(1);
        assertThat(k.parse("3")).isEqualTo(3);
        assertThat(k.parse(" 1 ")).isEqualTo(1);
        assertThatThrownBy(() -> k.parse("2"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("tarn.replication.default = 2: must be 1 or 3");
        assertThatThrownBy(() -> k.parse("0")).hasMessage("tarn.replication.default = 0: must be 1 or 3");
    }

    @Test
    void parseFailuresNameTheKeyAndTheTextAndKeepTheCause() {
        ConfigKey<Long> k = ConfigKey.bytes("test.size", 1024, 0, Long.MAX_VALUE, "doc");
        assertThatThrownBy(() -> k.parse("lots"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("test.size = 'lots': not a size: 'lots'")
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> k.parse("-3"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.size = '-3': size must not be negative: '-3'");
    }

    @Test
    void configExceptionIsAnIllegalArgumentException() {
        assertThat(new ConfigException("x")).isInstanceOf(IllegalArgumentException.class).hasMessage("x");
        Throwable cause = new RuntimeException("c");
        assertThat(new ConfigException("x", cause)).hasCause(cause);
    }

    // ------------------------------------------------------------------ millis

    @Test
    void millisKeyParsesDurations() {
        ConfigKey<Long> k = ConfigKey.millis("test.timeout", 1000, 1, 3_600_000, "doc");
        assertThat(k.unit()).isEqualTo("ms");
        assertThat(k.parse("250")).isEqualTo(250L);
        assertThat(k.parse("2s")).isEqualTo(2000L);
        assertThat(k.parse("1h")).isEqualTo(3_600_000L);
        assertThat(k.format(90_000L)).isEqualTo("90000");
        assertThatThrownBy(() -> k.parse("0"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.timeout = 0: must be between 1ms and 3600000ms");
        assertThatThrownBy(() -> k.parse("2h"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.timeout = 7200000: must be between 1ms and 3600000ms");
        assertThatThrownBy(() -> k.parse("soon"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("test.timeout = 'soon': not a duration");
    }

    /** Millisecond keys print their range in milliseconds, not as byte sizes. */
    @Test
    void millisecondRangeBoundsArePrintedAsDurations() {
        assertThatThrownBy(() -> TarnKeys.LEASE_TIMEOUT.parse("25h"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("tarn.namenode.lease.timeout = 90000000: must be between 100ms and 86400000ms");
        ConfigKey<Long> k = ConfigKey.millis("test.timeout", 2048, 1024, 4096, "doc");
        assertThatThrownBy(() -> k.parse("5000"))
                .hasMessage("test.timeout = 5000: must be between 1024ms and 4096ms");
    }

    // ------------------------------------------------------------------ integer

    @Test
    void integerKey() {
        ConfigKey<Integer> k = ConfigKey.integer("test.threads", 4, 0, 256, "threads", "doc");
        assertThat(k.unit()).isEqualTo("threads");
        assertThat(k.defaultValue()).isEqualTo(4);
        assertThat(k.parse(" 17 ")).isEqualTo(17);
        assertThat(k.parse("0")).isZero();
        assertThat(k.parse("256")).isEqualTo(256);
        assertThat(k.format(12)).isEqualTo("12");
        assertThatThrownBy(() -> k.parse("257"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.threads = 257: must be between 0 and 256");
        assertThatThrownBy(() -> k.parse("-1"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.threads = -1: must be between 0 and 256");
        assertThatThrownBy(() -> k.parse("4k"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("test.threads = '4k': ");
        assertThatThrownBy(() -> k.parse("99999999999"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("test.threads = '99999999999': ");
    }

    // ------------------------------------------------------------------ bool

    @ParameterizedTest
    @ValueSource(strings = {"true", "TRUE", "True", "yes", "on", "1", " true "})
    void booleanTrueSpellings(String text) {
        assertThat(ConfigKey.bool("test.flag", false, "doc").parse(text)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"false", "FALSE", "no", "off", "0", " Off "})
    void booleanFalseSpellings(String text) {
        assertThat(ConfigKey.bool("test.flag", true, "doc").parse(text)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "maybe", "2", "y", "n", "enabled", "truee"})
    void booleanGarbageIsRejected(String text) {
        assertThatThrownBy(() -> ConfigKey.bool("test.flag", true, "doc").parse(text))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.flag = '" + text + "': expected true or false, got '" + text + "'");
    }

    @Test
    void booleanFormat() {
        ConfigKey<Boolean> k = ConfigKey.bool("test.flag", true, "doc");
        assertThat(k.format(true)).isEqualTo("true");
        assertThat(k.format(false)).isEqualTo("false");
        assertThat(k.unit()).isEmpty();
    }

    // ------------------------------------------------------------------ string

    @Test
    void stringKeyTrimsAndValidates() {
        ConfigKey<String> free = ConfigKey.string("test.path", "/x", "doc", null);
        assertThat(free.parse("  /dev/shm/tarn  ")).isEqualTo("/dev/shm/tarn");
        assertThat(free.parse("")).isEmpty();
        assertThat(free.format("/a b")).isEqualTo("/a b");

        ConfigKey<String> checked = ConfigKey.string("test.name", "ok", "doc",
                v -> v.startsWith("ok") ? null : "must start with ok");
        assertThat(checked.parse("okay")).isEqualTo("okay");
        assertThatThrownBy(() -> checked.parse("nope"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.name = nope: must start with ok");
        assertThatThrownBy(() -> checked.validate("bad"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.name = bad: must start with ok");
        assertThatCode(() -> checked.validate("ok")).doesNotThrowAnyException();
    }

    // ------------------------------------------------------------------ choice

    @Test
    void choiceKeyIsCaseInsensitiveAndFormatsLowerCase() {
        ConfigKey<TransportKind> k = ConfigKey.choice("test.transport", TransportKind.AUTO, TransportKind.class, "doc");
        assertThat(k.parse("tcp")).isEqualTo(TransportKind.TCP);
        assertThat(k.parse(" RDMA ")).isEqualTo(TransportKind.RDMA);
        assertThat(k.parse("Auto")).isEqualTo(TransportKind.AUTO);
        assertThat(k.format(TransportKind.RDMA)).isEqualTo("rdma");
        assertThatThrownBy(() -> k.parse("udp"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("test.transport = 'udp': expected one of auto | tcp | rdma, got 'udp'");
    }

    @Test
    void dramModeChoices() {
        assertThat(TarnKeys.DRAM_MODE.parse("mmap")).isEqualTo(DramMode.MMAP);
        assertThat(TarnKeys.DRAM_MODE.parse("DIRECT")).isEqualTo(DramMode.DIRECT);
        assertThatThrownBy(() -> TarnKeys.DRAM_MODE.parse("hugepages"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("tarn.datanode.dram.mode = 'hugepages': expected one of auto | mmap | direct, "
                        + "got 'hugepages'");
    }

    // ------------------------------------------------------------------ the real keys

    @Test
    void everyKeyHasAUniqueTarnNameAValidDefaultAndDocumentation() {
        Set<String> names = new HashSet<>();
        for (ConfigKey<?> k : TarnKeys.ALL) {
            assertThat(names.add(k.name())).as("duplicate key %s", k).isTrue();
            assertThat(k.name()).startsWith("tarn.").doesNotContain(" ");
            assertThat(k.doc()).as("doc of %s", k).isNotBlank();
            assertThat(k.unit()).as("unit of %s", k).isNotNull();
            assertThat(k.defaultValue()).as("default of %s", k).isNotNull();
            assertDefaultValid(k);
            assertThat(TarnConfig.key(k.name())).isSameAs(k);
        }
    }

    @Test
    void everyKeyConstantIsListedInAll() throws IllegalAccessException {
        Set<Object> declared = new HashSet<>();
        for (Field f : TarnKeys.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == ConfigKey.class) {
                declared.add(f.get(null));
            }
        }
        assertThat(declared).isNotEmpty();
        assertThat(TarnKeys.ALL)
                .containsExactlyInAnyOrderElementsOf(declared.stream().map(o -> (ConfigKey<?>) o).toList());
    }

    private static <T> void assertDefaultValid(ConfigKey<T> k) {
        assertThatCode(() -> k.validate(k.defaultValue())).as("default of %s", k).doesNotThrowAnyException();
        assertThat(k.parse(k.format(k.defaultValue()))).as("format/parse of the default of %s", k)
                .isEqualTo(k.defaultValue());
    }

    @Test
    void hostPortKeysNameTheKeyInErrors() {
        assertThatThrownBy(() -> TarnKeys.NAMENODE_ADDRESS.parse("namenode"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("tarn.namenode.address = namenode: expected host:port, got 'namenode'");
        assertThatThrownBy(() -> TarnKeys.DATANODE_BIND.parse("0.0.0.0:70000"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("tarn.datanode.bind = 0.0.0.0:70000: port 70000 is outside 0..65535");
        assertThat(TarnKeys.NAMENODE_ADDRESS.parse(" [::1]:9060 ")).isEqualTo("[::1]:9060");
    }

    @Test
    void namenodeBindMayBeEmptyButOtherwiseMustBeHostPort() {
        assertThat(TarnKeys.NAMENODE_BIND.parse("")).isEmpty();
        assertThat(TarnKeys.NAMENODE_BIND.parse("   ")).isEmpty();
        assertThat(TarnKeys.NAMENODE_BIND.parse("0.0.0.0:9060")).isEqualTo("0.0.0.0:9060");
        assertThatThrownBy(() -> TarnKeys.NAMENODE_BIND.parse("0.0.0.0"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("tarn.namenode.bind = 0.0.0.0: ");
    }

    @Test
    void sizeKeyRangesAreEnforced() {
        assertThatThrownBy(() -> TarnKeys.BLOCK_SIZE.parse("2k"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("tarn.blocksize = 2k: must be between 4k and 1g");
        assertThatThrownBy(() -> TarnKeys.RPC_MAX_FRAME.parse("32k"))
                .hasMessage("tarn.rpc.max.frame = 32k: must be between 64k and 1g");
        assertThatThrownBy(() -> TarnKeys.DRAM_CAPACITY.parse("2048t"))
                .hasMessage("tarn.datanode.dram.capacity = 2048t: must be between 64k and 1024t");
        assertThat(TarnKeys.CLIENT_READAHEAD.parse("0")).isZero();
        assertThatThrownBy(() -> TarnKeys.RPC_IO_THREADS.parse("257"))
                .hasMessage("tarn.rpc.io.threads = 257: must be between 0 and 256");
        assertThatThrownBy(() -> TarnKeys.STORAGE_CLASS.parse("16"))
                .hasMessage("tarn.datanode.storage.class = 16: must be between 0 and 15");
    }
}
