package io.tarn.tools;

import io.tarn.common.config.ConfigKey;
import io.tarn.common.config.TarnKeys;

import java.util.ArrayList;
import java.util.List;

/**
 * Renders the documented {@code conf/tarn-site.conf}: every key of {@link TarnKeys#GROUPS}, a
 * section per process that reads them, with its meaning, unit and default, commented out.
 * {@code tarn conf --template} prints it, which is how the shipped file was produced;
 * {@code ConfDocsTest} keeps the shipped file in step with the keys.
 */
public final class ConfTemplate {
    private static final int WIDTH = 100;

    private ConfTemplate() {
    }

    /** The whole file. */
    public static String render() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Tarn configuration: tarn-site.conf\n")
          .append("#\n")
          .append("# One 'key value' (or 'key = value') per line; '#' starts a comment. bin/tarn reads\n")
          .append("# $TARN_CONF_DIR/tarn-site.conf; -Dtarn.key=value in TARN_OPTS and -D key=value on the\n")
          .append("# command line override it, in that order. Unknown tarn.* keys are rejected.\n")
          .append("# Sizes take k, m, g, t suffixes (binary: 1m = 1048576 bytes); durations take ms, s, m, h\n")
          .append("# (a plain number is milliseconds). Every key is listed below, commented out, with its\n")
          .append("# default: uncomment a line to change it. Regenerate with: tarn conf --template\n");
        for (TarnKeys.Group group : TarnKeys.GROUPS) {
            String title = "==== " + group.title() + " ";
            sb.append("\n# ").append(title).append("=".repeat(Math.max(4, WIDTH - 2 - title.length()))).append('\n');
            for (ConfigKey<?> key : group.keys()) {
                sb.append('\n');
                for (String line : wrap(key.doc() + unitNote(key), WIDTH - 2)) {
                    sb.append("# ").append(line).append('\n');
                }
                sb.append(defaultLine(key)).append('\n');
            }
        }
        return sb.toString();
    }

    /** The commented-out line holding a key's default, as the file shows it. */
    public static String defaultLine(ConfigKey<?> key) {
        String value = formattedDefault(key);
        return value.isEmpty() ? "# " + key.name() + " =" : "# " + key.name() + " " + value;
    }

    /** A key's default formatted the way the configuration file holds it. */
    public static <T> String formattedDefault(ConfigKey<T> key) {
        return key.format(key.defaultValue());
    }

    private static String unitNote(ConfigKey<?> key) {
        switch (key.unit()) {
            case "":
                return "";
            case "bytes":
                return " Unit: bytes (k, m, g, t suffixes).";
            case "ms":
                return " Unit: milliseconds (or ms, s, m, h suffixes).";
            default:
                return " Unit: " + key.unit() + ".";
        }
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split("\\s+")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
