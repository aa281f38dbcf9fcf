package io.tarn.it.dfsio;

import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** Formats a Tarn and an HDFS result side by side as a Markdown table, with Tarn/HDFS ratios. */
final class ComparisonTable {
    private ComparisonTable() {
    }

    static String markdown(DfsioSettings settings, DfsioResult tarn, DfsioResult hdfs) {
        StringBuilder out = new StringBuilder();
        out.append("| TestDFSIO, ").append(settings.files()).append(" files × ").append(settings.fileMb())
                .append(" MiB | ").append(tarn.fileSystem()).append(" | ").append(hdfs.fileSystem())
                .append(" | Tarn / HDFS |\n");
        out.append("|---|---:|---:|---:|\n");
        row(out, "write throughput, MiB/s", tarn, hdfs, r -> r.write().throughput());
        row(out, "write average I/O rate, MiB/s", tarn, hdfs, r -> r.write().averageIoRate());
        row(out, "write job time, s (lower is better)", tarn, hdfs, r -> r.write().execSeconds());
        row(out, "read throughput, MiB/s", tarn, hdfs, r -> r.read().throughput());
        row(out, "read average I/O rate, MiB/s", tarn, hdfs, r -> r.read().averageIoRate());
        row(out, "read job time, s (lower is better)", tarn, hdfs, r -> r.read().execSeconds());
        return out.toString();
    }

    private static void row(StringBuilder out, String name, DfsioResult tarn, DfsioResult hdfs,
                            ToDoubleFunction<DfsioResult> figure) {
        double t = figure.applyAsDouble(tarn);
        double h = figure.applyAsDouble(hdfs);
        out.append("| ").append(name).append(" | ").append(format(t)).append(" | ").append(format(h)).append(" | ")
                .append(h > 0 ? String.format(Locale.ROOT, "%.2f", t / h) : "n/a").append(" |\n");
    }

    private static String format(double v) {
        return String.format(Locale.ROOT, "%,.1f", v);
    }
}
