package io.tarn.common.config;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TarnConfigTest {

    private static final long K = 1024;
    private static final long M = 1024 * K;
    private static final long G = 1024 * M;

    @Nested
    class Defaults {
        @Test
        void defaultsAreTheKeysDefaults() {
            TarnConfig c = TarnConfig.defaults();
            for (ConfigKey<?> k : TarnKeys.ALL) {
                assertThat((Object) c.get(k)).as("%s", k).isEqualTo(k.defaultValue());
            }
        }

        @Test
        void documentedDefaultValues() {
            TarnConfig c = TarnConfig.defaults();
            assertThat(c.get(TarnKeys.NAMENODE_ADDRESS)).isEqualTo("localhost:9060");
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(M);
            assertThat(c.get(TarnKeys.TRANSPORT)).isEqualTo(TransportKind.AUTO);
            assertThat(c.get(TarnKeys.RPC_TIMEOUT)).isEqualTo(30_000L);
            assertThat(c.get(TarnKeys.RPC_MAX_FRAME)).isEqualTo(16 * M);
            assertThat(c.get(TarnKeys.DRAM_CAPACITY)).isEqualTo(G);
            assertThat(c.get(TarnKeys.DRAM_REGION_SIZE)).isEqualTo(256 * M);
            assertThat(c.get(TarnKeys.DRAM_MODE)).isEqualTo(DramMode.AUTO);
            assertThat(c.get(TarnKeys.DRAM_KEEP)).isFalse();
            assertThat(c.get(TarnKeys.CLIENT_LOCATION_AFFINITY)).isTrue();
            assertThat(c.get(TarnKeys.CLIENT_IO_CHUNK)).isEqualTo(M);
            assertThat(c.getInt(TarnKeys.BLOCK_SIZE)).isEqualTo(1 << 20);
        }

        @Test
        void describeListsEveryKeyInDocumentationOrderFormatted() {
            Map<String, String> d = TarnConfig.defaults().describe();
            assertThat(d.keySet()).containsExactlyElementsOf(TarnKeys.ALL.stream().map(ConfigKey::name).toList());
            assertThat(d).containsEntry("tarn.blocksize", "1m")
                    .containsEntry("tarn.transport", "auto")
                    .containsEntry("tarn.rpc.timeout", "30000")
                    .containsEntry("tarn.rpc.max.frame", "16m")
                    .containsEntry("tarn.datanode.dram.capacity", "1g")
                    .containsEntry("tarn.datanode.dram.keep", "false")
                    .containsEntry("tarn.namenode.bind", "")
                    .containsEntry("tarn.rpc.io.threads", "0");
            assertThat(TarnConfig.defaults().toString()).startsWith("TarnConfig{tarn.namenode.address=localhost:9060,");
        }

        @Test
        void describeOutputLoadsBackToAnEqualConfiguration() {
            TarnConfig original = TarnConfig.builder()
                    .set(TarnKeys.BLOCK_SIZE, 64 * K)
                    .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                    .set(TarnKeys.RPC_TIMEOUT, 1234L)
                    .set(TarnKeys.DRAM_PATH, "/mnt/huge pages/tarn")
                    .set(TarnKeys.DRAM_KEEP, true)
                    .build();
            TarnConfig copy = TarnConfig.builder().apply(original.describe()).build();
            assertThat(copy.describe()).isEqualTo(original.describe());
        }

        @Test
        void keyLookupByName() {
            assertThat(TarnConfig.key("tarn.blocksize")).isSameAs(TarnKeys.BLOCK_SIZE);
            assertThat(TarnConfig.key("tarn.nope")).isNull();
            assertThat(TarnConfig.key(" tarn.blocksize")).isNull();
        }
    }

    @Nested
    class Setting {
        @Test
        void typedSetValidates() {
            TarnConfig c = TarnConfig.builder()
                    .set(TarnKeys.BLOCK_SIZE, 4 * K)
                    .set(TarnKeys.RPC_IO_THREADS, 8)
                    .set(TarnKeys.DRAM_MODE, DramMode.DIRECT)
                    .build();
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(4 * K);
            assertThat(c.get(TarnKeys.RPC_IO_THREADS)).isEqualTo(8);
            assertThat(c.get(TarnKeys.DRAM_MODE)).isEqualTo(DramMode.DIRECT);

            TarnConfig.Builder b = TarnConfig.builder();
            assertThatThrownBy(() -> b.set(TarnKeys.BLOCK_SIZE, 1024L))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("tarn.blocksize = 1k: must be between 4k and 1g");
            assertThatThrownBy(() -> b.set(TarnKeys.RPC_IO_THREADS, -1))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("tarn.rpc.io.threads = -1: must be between 0 and 256");
            assertThatThrownBy(() -> b.set(TarnKeys.NAMENODE_ADDRESS, "nohost"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("tarn.namenode.address = nohost: ");
            // the rejected values were not stored
            assertThat(b.build().get(TarnKeys.BLOCK_SIZE)).isEqualTo(M);
            assertThat(b.build().get(TarnKeys.RPC_IO_THREADS)).isZero();
        }

        @Test
        void setByNameParsesText() {
            TarnConfig c = TarnConfig.builder()
                    .set("tarn.blocksize", "64k")
                    .set("tarn.rpc.timeout", "10s")
                    .set("tarn.transport", "RDMA")
                    .set("tarn.datanode.dram.keep", "yes")
                    .set(" tarn.rpc.io.threads ", " 4 ")
                    .set("tarn.namenode.address", "[::1]:9060")
                    .build();
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(64 * K);
            assertThat(c.get(TarnKeys.RPC_TIMEOUT)).isEqualTo(10_000L);
            assertThat(c.get(TarnKeys.TRANSPORT)).isEqualTo(TransportKind.RDMA);
            assertThat(c.get(TarnKeys.DRAM_KEEP)).isTrue();
            assertThat(c.get(TarnKeys.RPC_IO_THREADS)).isEqualTo(4);
            assertThat(c.get(TarnKeys.NAMENODE_ADDRESS)).isEqualTo("[::1]:9060");
        }

        @Test
        void setByNameRejectsBadValuesNamingTheKey() {
            assertThatThrownBy(() -> TarnConfig.builder().set("tarn.blocksize", "big"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("tarn.blocksize = 'big': not a size");
            assertThatThrownBy(() -> TarnConfig.builder().set("tarn.rpc.timeout", "0"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("tarn.rpc.timeout = 0: must be between 1ms and 3600000ms");
        }

        @Test
        void laterValuesWin() {
            TarnConfig c = TarnConfig.builder()
                    .set("tarn.blocksize", "64k")
                    .set(TarnKeys.BLOCK_SIZE, 128 * K)
                    .set("tarn.blocksize", "256k")
                    .build();
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(256 * K);
        }

        @Test
        void unknownKeyIsRejectedWithASuggestion() {
            assertThatThrownBy(() -> TarnConfig.builder().set("tarn.blocksze", "4k"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("unknown configuration key 'tarn.blocksze' (did you mean 'tarn.blocksize'?)");
            assertThatThrownBy(() -> TarnConfig.builder().set("tarn.rpc.timeuot", "1s"))
                    .hasMessage("unknown configuration key 'tarn.rpc.timeuot' (did you mean 'tarn.rpc.timeout'?)");
            assertThatThrownBy(() -> TarnConfig.builder().set("tarn.datanode.dram.capcity", "1g"))
                    .hasMessage("unknown configuration key 'tarn.datanode.dram.capcity'"
                            + " (did you mean 'tarn.datanode.dram.capacity'?)");
            assertThatThrownBy(() -> TarnConfig.builder().set("TARN.BLOCKSIZE", "4k"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("unknown configuration key 'TARN.BLOCKSIZE'");
        }

        @Test
        void farOffUnknownKeyGetsNoSuggestion() {
            assertThatThrownBy(() -> TarnConfig.builder().set("hadoop.tmp.dir", "/tmp"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("unknown configuration key 'hadoop.tmp.dir'");
            assertThatThrownBy(() -> TarnConfig.builder().set("tarn.something.completely.different", "1"))
                    .hasMessage("unknown configuration key 'tarn.something.completely.different'");
        }

        @Test
        void applyMapSetsEveryEntry() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("tarn.blocksize", "8k");
            m.put("tarn.client.io.chunk", "8k");
            TarnConfig c = TarnConfig.builder().apply(m).build();
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(8 * K);
            assertThat(c.get(TarnKeys.CLIENT_IO_CHUNK)).isEqualTo(8 * K);
            assertThatThrownBy(() -> TarnConfig.builder().apply(Map.of("tarn.nope", "1")))
                    .isInstanceOf(ConfigException.class);
        }

        @Test
        void getIntRejectsValuesBeyondAnInt() {
            TarnConfig c = TarnConfig.builder().set("tarn.datanode.dram.capacity", "4g").build();
            assertThat(c.get(TarnKeys.DRAM_CAPACITY)).isEqualTo(4 * G);
            assertThatThrownBy(() -> c.getInt(TarnKeys.DRAM_CAPACITY)).isInstanceOf(ArithmeticException.class);
            assertThat(c.getInt(TarnKeys.DRAM_REGION_SIZE)).isEqualTo(256 << 20);
        }

        @Test
        void toBuilderStartsFromTheValuesAndLeavesTheOriginalAlone() {
            TarnConfig a = TarnConfig.builder().set("tarn.blocksize", "64k").set("tarn.transport", "tcp").build();
            TarnConfig b = a.toBuilder().set("tarn.transport", "rdma").build();
            assertThat(b.get(TarnKeys.BLOCK_SIZE)).isEqualTo(64 * K);
            assertThat(b.get(TarnKeys.TRANSPORT)).isEqualTo(TransportKind.RDMA);
            assertThat(a.get(TarnKeys.TRANSPORT)).isEqualTo(TransportKind.TCP);
        }

        @Test
        void builderCanBeReusedAfterBuildWithoutChangingBuiltConfigs() {
            TarnConfig.Builder b = TarnConfig.builder().set("tarn.blocksize", "64k");
            TarnConfig first = b.build();
            b.set("tarn.blocksize", "128k");
            assertThat(first.get(TarnKeys.BLOCK_SIZE)).isEqualTo(64 * K);
            assertThat(b.build().get(TarnKeys.BLOCK_SIZE)).isEqualTo(128 * K);
        }
    }

    @Nested
    class PropertyOverrides {
        @Test
        void appliesOnlyTarnEntriesAndSkipsSimAndTestNamespaces() {
            Properties p = new Properties();
            p.setProperty("tarn.blocksize", "16k");
            p.setProperty("tarn.rpc.timeout", "2s");
            p.setProperty("tarn.sim.seed", "42");
            p.setProperty("tarn.test.whatever", "x");
            p.setProperty("java.io.tmpdir", "/tmp");
            p.setProperty("tarnished", "1");
            TarnConfig c = TarnConfig.builder().apply(p).build();
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(16 * K);
            assertThat(c.get(TarnKeys.RPC_TIMEOUT)).isEqualTo(2_000L);
        }

        @Test
        void unknownTarnPropertyIsRejected() {
            Properties p = new Properties();
            p.setProperty("tarn.blocksise", "16k");
            assertThatThrownBy(() -> TarnConfig.builder().apply(p))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("unknown configuration key 'tarn.blocksise' (did you mean 'tarn.blocksize'?)");
        }

        @Test
        void badPropertyValueNamesTheKey() {
            Properties p = new Properties();
            p.setProperty("tarn.rpc.io.threads", "many");
            assertThatThrownBy(() -> TarnConfig.builder().apply(p))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("tarn.rpc.io.threads = 'many': ");
        }

        @Test
        void propertiesOverrideFileValuesAndExplicitSetsOverrideBoth(@TempDir Path dir) throws IOException {
            Path f = write(dir, "tarn.blocksize 8k", "tarn.rpc.timeout 3s", "tarn.transport tcp");
            Properties p = new Properties();
            p.setProperty("tarn.rpc.timeout", "4s");
            p.setProperty("tarn.transport", "rdma");
            TarnConfig c = TarnConfig.builder().load(f).apply(p).set("tarn.transport", "auto").build();
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(8 * K);
            assertThat(c.get(TarnKeys.RPC_TIMEOUT)).isEqualTo(4_000L);
            assertThat(c.get(TarnKeys.TRANSPORT)).isEqualTo(TransportKind.AUTO);
        }

        @Test
        void fromSystemPropertiesReadsTarnSystemProperties() {
            String key = "tarn.client.readahead";
            String old = System.getProperty(key);
            System.setProperty(key, "12m");
            try {
                assertThat(TarnConfig.fromSystemProperties().get(TarnKeys.CLIENT_READAHEAD)).isEqualTo(12 * M);
                assertThat(TarnConfig.builder().applySystemProperties().build().get(TarnKeys.CLIENT_READAHEAD))
                        .isEqualTo(12 * M);
            } finally {
                if (old == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, old);
                }
            }
            assertThat(TarnConfig.fromSystemProperties().get(TarnKeys.CLIENT_READAHEAD))
                    .isEqualTo(TarnKeys.CLIENT_READAHEAD.defaultValue());
        }
    }

    @Nested
    class LoadFile {
        @Test
        void readsBothFormsCommentsAndBlankLines(@TempDir Path dir) throws IOException {
            Path f = write(dir,
                    "# Tarn site configuration",
                    "",
                    "   ",
                    "tarn.blocksize 64k",
                    "tarn.rpc.timeout = 10s   # trailing comment",
                    "tarn.transport=tcp",
                    "\ttarn.datanode.dram.region.size\t=\t128k  ",
                    "tarn.datanode.dram.capacity =512k",
                    "tarn.client.io.chunk= 32k",
                    "tarn.datanode.hostname =",
                    "tarn.datanode.dram.path    /mnt/huge pages/tarn",
                    "tarn.client.location.affinity\toff",
                    "   # indented comment = with equals",
                    "tarn.rpc.io.threads 3#comment right after the value",
                    "tarn.namenode.address = [::1]:9060");
            TarnConfig c = TarnConfig.builder().load(f).build();
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(64 * K);
            assertThat(c.get(TarnKeys.RPC_TIMEOUT)).isEqualTo(10_000L);
            assertThat(c.get(TarnKeys.TRANSPORT)).isEqualTo(TransportKind.TCP);
            assertThat(c.get(TarnKeys.DRAM_REGION_SIZE)).isEqualTo(128 * K);
            assertThat(c.get(TarnKeys.DRAM_CAPACITY)).isEqualTo(512 * K);
            assertThat(c.get(TarnKeys.CLIENT_IO_CHUNK)).isEqualTo(32 * K);
            assertThat(c.get(TarnKeys.DATANODE_HOSTNAME)).isEmpty();
            assertThat(c.get(TarnKeys.DRAM_PATH)).isEqualTo("/mnt/huge pages/tarn");
            assertThat(c.get(TarnKeys.CLIENT_LOCATION_AFFINITY)).isFalse();
            assertThat(c.get(TarnKeys.RPC_IO_THREADS)).isEqualTo(3);
            assertThat(c.get(TarnKeys.NAMENODE_ADDRESS)).isEqualTo("[::1]:9060");
        }

        @Test
        void windowsLineEndingsAndUnicodeValues(@TempDir Path dir) throws IOException {
            Path f = dir.resolve("tarn-site.conf");
            Files.writeString(f, "tarn.blocksize = 8k\r\ntarn.datanode.dram.path = /dätä/文件\r\n",
                    StandardCharsets.UTF_8);
            TarnConfig c = TarnConfig.builder().load(f).build();
            assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(8 * K);
            assertThat(c.get(TarnKeys.DRAM_PATH)).isEqualTo("/dätä/文件");
        }

        @Test
        void emptyFileChangesNothing(@TempDir Path dir) throws IOException {
            Path f = write(dir, "# nothing", "");
            assertThat(TarnConfig.builder().load(f).build().describe()).isEqualTo(TarnConfig.defaults().describe());
        }

        @Test
        void laterLinesWin(@TempDir Path dir) throws IOException {
            Path f = write(dir, "tarn.blocksize 8k", "tarn.blocksize 16k");
            assertThat(TarnConfig.builder().load(f).build().get(TarnKeys.BLOCK_SIZE)).isEqualTo(16 * K);
        }

        @Test
        void lineWithoutValueIsRejectedWithItsLineNumber(@TempDir Path dir) throws IOException {
            Path f = write(dir, "# header", "tarn.blocksize 8k", "tarn.transport", "tarn.rpc.timeout 1s");
            assertThatThrownBy(() -> TarnConfig.builder().load(f))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage(f + ":3: malformed line 'tarn.transport': expected 'key value' or 'key = value', "
                            + "such as 'tarn.blocksize 1m'");
        }

        @ParameterizedTest
        @ValueSource(strings = {"=== garbage ===", "= 1m", "tarn.blocksize: 1m", "[tarn]", "\"tarn.blocksize\" 1m"})
        void aLineThatIsNoKeyValuePairIsMalformedNotAnUnknownKey(String line, @TempDir Path dir) throws IOException {
            Path f = write(dir, "tarn.blocksize 8k", "", line);
            assertThatThrownBy(() -> TarnConfig.builder().load(f))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage(f + ":3: malformed line '" + line + "': expected 'key value' or 'key = value', "
                            + "such as 'tarn.blocksize 1m'");
        }

        @Test
        void badValueIsRejectedWithLineNumberAndKey(@TempDir Path dir) throws IOException {
            Path f = write(dir, "tarn.blocksize 8k", "", "# c", "tarn.rpc.timeout = forever");
            assertThatThrownBy(() -> TarnConfig.builder().load(f))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith(f + ":4: tarn.rpc.timeout = 'forever': not a duration")
                    .hasCauseInstanceOf(ConfigException.class);
        }

        @Test
        void outOfRangeValueIsRejectedWithLineNumber(@TempDir Path dir) throws IOException {
            Path f = write(dir, "tarn.blocksize = 2k");
            assertThatThrownBy(() -> TarnConfig.builder().load(f))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage(f + ":1: tarn.blocksize = 2k: must be between 4k and 1g");
        }

        @Test
        void emptyValueOfASizeKeyIsRejected(@TempDir Path dir) throws IOException {
            Path f = write(dir, "tarn.blocksize =");
            assertThatThrownBy(() -> TarnConfig.builder().load(f))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage(f + ":1: tarn.blocksize = '': empty size");
        }

        @Test
        void unknownKeyIsRejectedWithLineNumberAndSuggestion(@TempDir Path dir) throws IOException {
            Path f = write(dir, "tarn.blocksize 8k", "tarn.rpc.max.fame = 1m");
            assertThatThrownBy(() -> TarnConfig.builder().load(f))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage(f + ":2: unknown configuration key 'tarn.rpc.max.fame'"
                            + " (did you mean 'tarn.rpc.max.frame'?)");
        }

        @Test
        void missingFileIsAnIOException(@TempDir Path dir) {
            assertThatThrownBy(() -> TarnConfig.builder().load(dir.resolve("absent.conf")))
                    .isInstanceOf(NoSuchFileException.class);
        }
    }

    @Nested
    class Relations {
        @Test
        void defaultsSatisfyEveryRelation() {
            assertThatCode(TarnConfig::defaults).doesNotThrowAnyException();
        }

        @Test
        void blockSizeMustBeAPowerOfTwo() {
            TarnConfig.Builder b = TarnConfig.builder().set("tarn.blocksize", "12k");
            assertThatThrownBy(b::build)
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("tarn.blocksize = 12k: must be a power of two");
            assertThatThrownBy(TarnConfig.builder().set(TarnKeys.BLOCK_SIZE, M + 4 * K)::build)
                    .hasMessage("tarn.blocksize = 1028k: must be a power of two");
            for (long bs = 4 * K; bs <= G; bs <<= 1) {
                long block = bs;
                assertThatCode(() -> TarnConfig.builder()
                        .set(TarnKeys.BLOCK_SIZE, block)
                        .set(TarnKeys.DRAM_REGION_SIZE, G)
                        .set(TarnKeys.CLIENT_IO_CHUNK, 4 * K)
                        .build()).as("block size %d", block).doesNotThrowAnyException();
            }
        }

        @Test
        void regionMustBeAMultipleOfTheBlockSize() {
            assertThatThrownBy(TarnConfig.builder().set("tarn.datanode.dram.region.size", "512k")::build)
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("tarn.datanode.dram.region.size = 512k: must be a multiple of tarn.blocksize = 1m");
            assertThatThrownBy(TarnConfig.builder().set("tarn.blocksize", "64k")
                    .set("tarn.datanode.dram.region.size", "96k")
                    .set("tarn.datanode.dram.capacity", "96k")::build)
                    .hasMessage("tarn.datanode.dram.region.size = 96k: must be a multiple of tarn.blocksize = 64k");
            assertThatCode(TarnConfig.builder().set("tarn.blocksize", "64k")
                    .set("tarn.datanode.dram.region.size", "192k")
                    .set("tarn.datanode.dram.capacity", "384k")::build).doesNotThrowAnyException();
        }

        @Test
        void capacityMustBeAMultipleOfTheRegionSize() {
            assertThatThrownBy(TarnConfig.builder().set("tarn.datanode.dram.capacity", "1100m")::build)
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("tarn.datanode.dram.capacity = 1100m: must be a multiple of "
                            + "tarn.datanode.dram.region.size = 256m");
            assertThatThrownBy(TarnConfig.builder().set("tarn.datanode.dram.capacity", "128m")::build)
                    .hasMessage("tarn.datanode.dram.capacity = 128m: must be a multiple of "
                            + "tarn.datanode.dram.region.size = 256m");
            assertThat(TarnConfig.builder().set("tarn.datanode.dram.capacity", "1280m").build()
                    .get(TarnKeys.DRAM_CAPACITY)).isEqualTo(1280 * M);
        }

        @Test
        void ioChunkMustLeave4kBelowTheMaxFrame() {
            assertThatThrownBy(TarnConfig.builder().set("tarn.client.io.chunk", "16m")::build)
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("tarn.client.io.chunk = 16m: must leave 4k of headroom below tarn.rpc.max.frame = 16m");
            assertThatThrownBy(TarnConfig.builder().set("tarn.client.io.chunk", "16381k")::build)
                    .isInstanceOf(ConfigException.class);
            // exactly 4k of headroom is enough
            assertThatCode(TarnConfig.builder().set("tarn.client.io.chunk", "16380k")::build)
                    .doesNotThrowAnyException();
            assertThatCode(
                    TarnConfig.builder().set("tarn.client.io.chunk", "64m").set("tarn.rpc.max.frame", "65m")::build)
                    .doesNotThrowAnyException();
            assertThatThrownBy(
                    TarnConfig.builder().set("tarn.client.io.chunk", "64k").set("tarn.rpc.max.frame", "64k")::build)
                    .hasMessage("tarn.client.io.chunk = 64k: must leave 4k of headroom below tarn.rpc.max.frame = 64k");
        }

        @Test
        void relationsAreCheckedAtBuildNotAtSet() {
            TarnConfig.Builder b = TarnConfig.builder().set("tarn.datanode.dram.region.size", "512k");
            assertThatThrownBy(b::build).isInstanceOf(ConfigException.class);
            // fixing the other side of the relation makes the same builder valid
            b.set("tarn.blocksize", "256k");
            assertThat(b.build().get(TarnKeys.DRAM_REGION_SIZE)).isEqualTo(512 * K);
        }

        @Test
        void relationErrorsFromAFileAreReportedAtBuild(@TempDir Path dir) throws IOException {
            Path f = write(dir, "tarn.blocksize 12k");
            TarnConfig.Builder b = TarnConfig.builder().load(f);
            assertThatThrownBy(b::build).hasMessage("tarn.blocksize = 12k: must be a power of two");
        }
    }

    private static Path write(Path dir, String... lines) throws IOException {
        Path f = dir.resolve("tarn-site.conf");
        Files.write(f, List.of(lines), StandardCharsets.UTF_8);
        return f;
    }

    @Nested
    class Groups {
        @Test
        void aGroupsMembersAreItsEntryOrTheMembersKeyWhenTheAddressNamesOne() {
            TarnConfig group = TarnConfig.builder().set(TarnKeys.NAMENODE_ADDRESS, "h1:9060|h2:9060|h3:9060").build();
            assertThat(group.namenodeGroups()).containsExactly(List.of(new HostPort("h1", 9060),
                    new HostPort("h2", 9060), new HostPort("h3", 9060)));
            assertThat(group.namenodes()).containsExactly(new HostPort("h1", 9060));
            assertThat(group.seedNamenodes()).hasSize(3);
            TarnConfig oneMember = TarnConfig.builder().set(TarnKeys.NAMENODE_ADDRESS, "h2:9060")
                    .set(TarnKeys.NAMENODE_MEMBERS, "h1:9060|h2:9060|h3:9060").build();
            assertThat(oneMember.seedNamenodes()).as("the group of the member named").hasSize(3);
            TarnConfig other = TarnConfig.builder().set(TarnKeys.NAMENODE_ADDRESS, "h9:9060")
                    .set(TarnKeys.NAMENODE_MEMBERS, "h1:9060|h2:9060|h3:9060").build();
            assertThat(other.seedNamenodes()).as("another cluster's members are not used")
                    .containsExactly(new HostPort("h9", 9060));
            assertThatThrownBy(() -> TarnConfig.builder().set(TarnKeys.NAMENODE_ADDRESS, "h1:1|h2:1").build())
                    .hasMessageContaining("lists 2 members of a namenode group; a group has 3 or 5");
            assertThatThrownBy(() -> TarnConfig.builder().set(TarnKeys.NAMENODE_MEMBERS, "h1:1|h2:1|h3:1,h4:1").build())
                    .hasMessageContaining("lists the members of one group");
            assertThatThrownBy(() -> TarnConfig.builder().set(TarnKeys.NAMENODE_ADDRESS, "h1:1|h2:1|h3:1")
                    .set(TarnKeys.NAMENODE_MEMBER, 3).build()).hasMessageContaining("tarn.namenode.member = 3");
        }
    }
}
