package io.tarn.common.config;

import java.util.Locale;

/** Parses and formats byte sizes such as {@code 512}, {@code 64k}, {@code 1m}, {@code 2g} (binary multiples). */
public final class DataSize {
    private DataSize() {
    }

    /**
     * Parses a size. Suffixes k, m, g, t (optionally followed by b or ib, any case) multiply by
     * 2^10, 2^20, 2^30, 2^40.
     *
     * @throws IllegalArgumentException if the text is not a non-negative size or overflows
     */
    public static long parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty size");
        }
        int shift = 0;
        char last = t.charAt(t.length() - 1);
        switch (last) {
            case 'k': shift = 10; break;
            case 'm': shift = 20; break;
            case 'g': shift = 30; break;
            case 't': shift = 40; break;
            default: break;
        }
        String digits = (shift == 0 ? t : t.substring(0, t.length() - 1)).trim();
        long base;
        try {
            base = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + text
                    + "' (use a number with an optional k, m, g or t suffix)");
        }
        if (base < 0) {
            throw new IllegalArgumentException("size must not be negative: '" + text + "'");
        }
        if (shift > 0 && base > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("size too large: '" + text + "'");
        }
        return base << shift;
    }

    /** Formats a size with the largest binary suffix that divides it exactly. */
    public static String format(long bytes) {
        if (bytes == Long.MAX_VALUE) {
            return String.valueOf(bytes);
        }
        String[] suffix = {"", "k", "m", "g", "t"};
        int i = 0;
        long v = bytes;
        while (i < suffix.length - 1 && v != 0 && (v & 1023) == 0) {
            v >>= 10;
            i++;
        }
        return v + suffix[i];
    }
}
