package io.tarn.tools;

import io.tarn.common.config.ConfigKey;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps conf/tarn-site.conf in step with {@link TarnKeys#ALL}: every key is documented exactly once
 * with a comment above it and its true default on a commented-out line. Regenerate the file with
 * {@code bin/tarn conf --template > conf/tarn-site.conf}.
 */
class ConfDocsTest {
    private static final Path SITE = Path.of("..", "conf", "tarn-site.conf");

    @TempDir
    Path dir;

    /** The commented-out default lines: a comment line directly followed by a blank line or the end. */
    private static Map<String, String> defaultLines() throws Exception {
        List<String> lines = Files.readAllLines(SITE);
        Map<String, String> byKey = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            boolean lastOfBlock = i + 1 == lines.size() || lines.get(i + 1).isBlank();
            if (!lastOfBlock || !line.startsWith("# tarn.")) {
                continue;
            }
            String key = line.substring(2).split("[ =]", 2)[0];
            assertThat(byKey.put(key, line)).as("%s documented twice", key).isNull();
            assertThat(i).as("%s has a comment above it", key).isPositive();
            assertThat(lines.get(i - 1)).as("comment above %s", key).startsWith("# ").hasSizeGreaterThan(10);
        }
        return byKey;
    }

    @Test
    void everyKeyIsDocumentedWithItsDefault() throws Exception {
        Map<String, String> documented = defaultLines();
        List<String> missing = new ArrayList<>();
        for (ConfigKey<?> key : TarnKeys.ALL) {
            String line = documented.get(key.name());
            if (line == null) {
                missing.add(key.name());
                continue;
            }
            assertThat(line).as("documented default of %s (regenerate with: bin/tarn conf --template)", key)
                    .isEqualTo(ConfTemplate.defaultLine(key));
        }
        assertThat(missing).as("keys missing from %s (regenerate with: bin/tarn conf --template)", SITE).isEmpty();
        assertThat(documented.keySet()).as("keys documented but unknown").allMatch(k -> TarnConfig.key(k) != null);
    }

    @Test
    void uncommentingEveryDefaultGivesTheDefaults() throws Exception {
        StringBuilder uncommented = new StringBuilder();
        for (String line : defaultLines().values()) {
            uncommented.append(line.substring(2)).append('\n');
        }
        Path file = Files.writeString(dir.resolve("all.conf"), uncommented.toString());
        TarnConfig loaded = TarnConfig.builder().load(file).build();
        assertThat(loaded.describe()).isEqualTo(TarnConfig.defaults().describe());
    }

    /** Descriptions too: a key's documentation changed in TarnKeys shows in the shipped file. */
    @Test
    void theShippedFileIsTheTemplate() throws Exception {
        assertThat(Files.readString(SITE)).as("%s (regenerate with: bin/tarn conf --template)", SITE)
                .isEqualTo(ConfTemplate.render());
    }

    @Test
    void theShippedFileLoadsAsItIs() throws Exception {
        assertThat(TarnConfig.builder().load(SITE).build().describe()).isEqualTo(TarnConfig.defaults().describe());
    }
}
