package io.tarn.tools;

import io.tarn.common.config.TarnConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Builds the configuration of one CLI invocation: the defaults of {@link io.tarn.common.config.TarnKeys},
 * then a {@code tarn-site.conf}, then {@code -Dtarn.*} JVM system properties (from {@code TARN_OPTS}),
 * then the command's {@code -D key=value} options; later sources win.
 *
 * <p>The file is the one given with {@code --config}, else the one named by the {@code tarn.conf}
 * system property that {@code bin/tarn} sets; a missing {@code tarn.conf} file is skipped (a fresh
 * clone has every line commented out anyway), a missing {@code --config} file is an error
 * ({@code cannot read configuration file FILE: no such file}, as in {@code tarn fs}). Every problem
 * surfaces as a {@link io.tarn.common.config.ConfigException} naming the key or file, which the CLI
 * reports with exit code 2.
 */
public final class ConfigLoader {
    /** System property naming the configuration file; set by bin/tarn. */
    public static final String CONF_PROPERTY = "tarn.conf";

    /** Launcher properties that share the tarn. prefix but are not configuration keys. */
    private static final Set<String> LAUNCHER_PROPERTIES = Set.of(CONF_PROPERTY, "tarn.home");

    private ConfigLoader() {
    }

    /**
     * @param explicitFile  the --config file, or null
     * @param systemProperties JVM system properties (tarn.conf and tarn.* keys are read from them)
     * @param overrides     -D key=value options, in order
     */
    public static TarnConfig load(Path explicitFile, Properties systemProperties, Map<String, String> overrides) {
        TarnConfig.Builder builder = TarnConfig.builder();
        Path file = explicitFile;
        if (file == null && systemProperties.getProperty(CONF_PROPERTY) != null) {
            Path named = Path.of(systemProperties.getProperty(CONF_PROPERTY));
            file = Files.exists(named) ? named : null;
        }
        if (file != null) {
            builder.loadFile(file);
        }
        builder.apply(configProperties(systemProperties));
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            builder.set(e.getKey(), e.getValue());
        }
        return builder.build();
    }

    /** The tarn.* system properties that are configuration keys (not launcher settings). */
    static Properties configProperties(Properties all) {
        Properties keys = new Properties();
        for (String name : all.stringPropertyNames()) {
            if (name.startsWith("tarn.") && !LAUNCHER_PROPERTIES.contains(name)) {
                keys.setProperty(name, all.getProperty(name));
            }
        }
        return keys;
    }
}
