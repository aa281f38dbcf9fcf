package io.tarn.common.config;

import java.util.Locale;

/** Parses durations such as {@code 250}, {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h} into milliseconds. */
final class Durations {
    private Durations() {
    }

    static long parseMillis(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("ms")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            unit = 1000;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            unit = 60_000;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("h")) {
            unit = 3_600_000;
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(t.trim()), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a duration: '" + text
                    + "' (use a number with an optional ms, s, m or h suffix)");
        }
    }
}
