package io.tarn.common.config;

import io.tarn.common.error.TarnException;
import io.tarn.common.fs.TarnPath;

import java.util.ArrayList;
import java.util.List;

/**
 * The value of {@code tarn.namenode.expire.dirs}: directories whose subdirectories the namenode
 * deletes once they have gone unmodified for a time, as {@code /spark-shuffle=10m,/tmp/jobs=1h}.
 * A subdirectory stays while something keeps modifying it: entries created or deleted directly in
 * it, or its modification time set (the Spark shuffle plugin's driver sets it periodically).
 */
public final class ExpiringDirectories {
    /** The shortest time to live accepted: shorter would race the clients that renew. */
    public static final long MIN_TTL_MS = 1_000;

    private ExpiringDirectories() {
    }

    /** Subdirectories of {@code parent} unmodified for {@code ttlMs} are deleted with what is below them. */
    public record Rule(String parent, long ttlMs) {
    }

    /**
     * The rules in {@code value}; empty for an empty value.
     *
     * @throws IllegalArgumentException naming the entry that is not {@code /absolute/path=duration}
     */
    public static List<Rule> parse(String value) {
        List<Rule> rules = new ArrayList<>();
        if (value.isBlank()) {
            return rules;
        }
        for (String entry : value.split(",")) {
            String e = entry.trim();
            int eq = e.indexOf('=');
            if (eq <= 0 || eq == e.length() - 1) {
                throw new IllegalArgumentException("entry '" + e + "' is not directory=duration, such as "
                        + "/spark-shuffle=10m");
            }
            String dir = e.substring(0, eq).trim();
            if (!dir.startsWith("/")) {
                throw new IllegalArgumentException("'" + dir + "' is not an absolute path");
            }
            String normalized;
            try {
                normalized = TarnPath.normalize(dir);
            } catch (TarnException bad) {
                throw new IllegalArgumentException("'" + dir + "': " + bad.getMessage());
            }
            if (normalized.equals("/")) {
                throw new IllegalArgumentException("'/' cannot expire its subdirectories: name a directory below it");
            }
            long ttl = Durations.parseMillis(e.substring(eq + 1));
            if (ttl < MIN_TTL_MS) {
                throw new IllegalArgumentException("'" + e + "': the time to live must be at least " + MIN_TTL_MS
                        + " ms");
            }
            for (Rule r : rules) {
                if (r.parent().equals(normalized)) {
                    throw new IllegalArgumentException("'" + normalized + "' is named twice");
                }
            }
            rules.add(new Rule(normalized, ttl));
        }
        return rules;
    }

    /** The validator of the key: null when {@code value} parses, else why not. */
    static String check(String value) {
        try {
            parse(value);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
