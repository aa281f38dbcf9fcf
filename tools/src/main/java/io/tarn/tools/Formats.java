package io.tarn.tools;

import io.tarn.common.config.DataSize;

import java.util.Locale;

/** Text formats shared by the commands: sizes and durations. */
public final class Formats {
    private Formats() {
    }

    /** Binary size with one decimal and a unit, as {@code hdfs dfs -du -h} prints it: 1.5 M, 512, 2 G. */
    public static String human(long bytes) {
        String[] units = {"", " K", " M", " G", " T", " P"};
        double v = bytes;
        int i = 0;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        if (i == 0) {
            return Long.toString(bytes);
        }
        return (v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v))
                + units[i];
    }

    /** A size the way configuration files write it: 1m, 64k, 1000. */
    public static String bytes(long bytes) {
        return DataSize.format(bytes);
    }

    /** A duration such as {@code 3d 4h}, {@code 5m 3s} or {@code 0.3 s}. */
    public static String duration(long millis) {
        if (millis < 10_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long s = millis / 1000;
        if (s < 3600) {
            return (s / 60) + "m " + (s % 60) + "s";
        }
        if (s < 86_400) {
            return (s / 3600) + "h " + (s % 3600 / 60) + "m";
        }
        return (s / 86_400) + "d " + (s % 86_400 / 3600) + "h";
    }
}
