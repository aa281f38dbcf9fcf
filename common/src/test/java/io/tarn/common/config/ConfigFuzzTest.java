package io.tarn.common.config;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of the configuration parser: whatever a {@code tarn-site.conf}
 * holds, reading it either gives a configuration or fails with a {@link ConfigException} naming
 * the file and line (or the key); any other exception is a finding. Half the inputs are lines of
 * real keys with fuzzed values, so the value parsers (sizes, durations, addresses, groups, enums)
 * are reached, not only the line syntax.
 *
 * <p>{@code mvn verify} replays the inputs checked in under
 * {@code src/test/resources/io/tarn/common/config/ConfigFuzzTestInputs/} and fuzzes for a bounded
 * time; docs/security.md says how to fuzz longer.
 */
class ConfigFuzzTest {
    private static final List<String> NAMES = TarnKeys.ALL.stream().map(k -> k.name()).toList();
    private static Path file;

    @BeforeAll
    static void file() throws IOException {
        file = Files.createTempFile("tarn-site-fuzz", ".conf");
    }

    @AfterAll
    static void deleteFile() throws IOException {
        Files.deleteIfExists(file);
    }

    @FuzzTest(maxDuration = "30s")
    void aConfigurationFileIsReadOrRefusedWithAConfigException(FuzzedDataProvider data) throws IOException {
        StringBuilder text = new StringBuilder();
        if (data.consumeBoolean()) {
            for (int lines = data.consumeInt(1, 4); lines > 0; lines--) {
                text.append(data.pickValue(NAMES)).append(data.consumeBoolean() ? " = " : " ")
                        .append(data.consumeString(40)).append('\n');
            }
        }
        byte[] rest = data.consumeRemainingAsBytes();
        Files.write(file, concat(text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), rest));
        try {
            TarnConfig.builder().loadFile(file).build();
        } catch (ConfigException refused) {
            // a clear refusal: what the CLI reports with exit code 2
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
