package io.tarn.it.compare;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The figures of a replicated-write comparison across its rounds, and their Markdown tables: each
 * cell is the median of the rounds with the smallest and largest in brackets, each figure taken on
 * its own (the median rate and the median p99 may come from different rounds); each ratio is taken
 * within each round, then summarised the same way. A load point that failed in a round is left out
 * of that round's figures and counted in the cell.
 */
final class ReplicatedWriteTable {
    /** A file system with one replication and one flush: a column of the tables. */
    record Series(String system, int replication, boolean sync) {
        String label() {
            return system + " r" + replication + (sync ? " hsync" : "");
        }
    }

    /** The two workloads. */
    enum Workload {
        SMALL("4 KiB appends, each followed by hflush (hsync where the column says so)"),
        SEQUENTIAL("1 MiB sequential writes, one file per writer, hflush at the end");

        final String title;

        Workload(String title) {
            this.title = title;
        }
    }

    /** Two series whose rate is compared in a ratio column, first over second. */
    record Ratio(Series over, Series under) {
    }

    private record Point(Series series, Workload workload, int depth) {
    }

    /** Each point's figures by round. */
    private final Map<Point, Map<Integer, AppendLoad.Figures>> figures = new LinkedHashMap<>();
    private final Map<Point, List<String>> failures = new LinkedHashMap<>();
    private final Map<String, List<Double>> baselines = new LinkedHashMap<>();
    private final List<Series> order;

    /** @param order the columns' order (series measured but not named here follow, as first recorded) */
    ReplicatedWriteTable(List<Series> order) {
        this.order = List.copyOf(order);
    }

    void record(Series series, Workload workload, int depth, int round, AppendLoad.Figures f) {
        figures.computeIfAbsent(new Point(series, workload, depth), p -> new TreeMap<>()).put(round, f);
    }

    void failed(Series series, Workload workload, int depth, String reason) {
        figures.computeIfAbsent(new Point(series, workload, depth), p -> new TreeMap<>());
        failures.computeIfAbsent(new Point(series, workload, depth), p -> new ArrayList<>()).add(reason);
    }

    /** One round's figure of the baseline {@code what} (its unit in the name). */
    void baseline(String what, double value) {
        baselines.computeIfAbsent(what, w -> new ArrayList<>()).add(value);
    }

    /** Every failure, "series, workload, depth: reason", for the record. */
    List<String> failureLines() {
        List<String> lines = new ArrayList<>();
        failures.forEach((p, reasons) -> reasons.forEach(r -> lines.add(
                p.series().label() + ", " + p.workload().name().toLowerCase(Locale.ROOT) + ", depth " + p.depth()
                        + ": " + r)));
        return lines;
    }

    /** The rate table of {@code workload}: one row per depth, one column per series, then the ratios. */
    String rates(Workload workload, List<Ratio> ratios) {
        boolean small = workload == Workload.SMALL;
        ToDoubleFunction<AppendLoad.Figures> rate = small ? AppendLoad.Figures::opsPerSecond
                : AppendLoad.Figures::mbPerSecond;
        String unit = small ? "writes/s" : "MB/s";
        List<Series> columns = series(workload);
        List<Ratio> shown = ratios.stream()
                .filter(r -> columns.contains(r.over()) && columns.contains(r.under())).toList();
        StringBuilder sb = new StringBuilder();
        sb.append("| depth |");
        columns.forEach(s -> sb.append(' ').append(s.label()).append(' ').append(unit).append(" |"));
        shown.forEach(r -> sb.append(" ").append(r.over().label()).append(" / ")
                .append(r.under().label()).append(" |"));
        sb.append('\n').append("|---:|");
        sb.append("---:|".repeat(columns.size() + shown.size())).append('\n');
        for (int depth : depths(workload)) {
            sb.append("| ").append(depth).append(" |");
            for (Series s : columns) {
                sb.append(' ').append(cell(new Point(s, workload, depth), rate, "%,.0f")).append(" |");
            }
            for (Ratio r : shown) {
                sb.append(' ').append(ratio(r, workload, depth, rate)).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The latency table of {@code workload}: per depth and series, "p50 / p99" in µs (medians). */
    String latencies(Workload workload) {
        List<Series> columns = series(workload);
        StringBuilder sb = new StringBuilder("| depth |");
        columns.forEach(s -> sb.append(' ').append(s.label()).append(" p50 / p99 µs |"));
        sb.append('\n').append("|---:|").append("---:|".repeat(columns.size())).append('\n');
        for (int depth : depths(workload)) {
            sb.append("| ").append(depth).append(" |");
            for (Series s : columns) {
                Point p = new Point(s, workload, depth);
                double p50 = median(p, AppendLoad.Figures::p50Micros);
                double p99 = median(p, AppendLoad.Figures::p99Micros);
                sb.append(' ').append(Double.isNaN(p50) ? "n/a"
                        : String.format(Locale.ROOT, "%,.0f / %,.0f", p50, p99)).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The baselines: median and range of each over the rounds. */
    String baselines() {
        StringBuilder sb = new StringBuilder("| baseline | median | min–max | rounds |\n|---|---:|---:|---:|\n");
        baselines.forEach((what, values) -> {
            double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            sb.append("| ").append(what).append(" | ").append(String.format(Locale.ROOT, "%,.1f", median(v)))
                    .append(" | ").append(String.format(Locale.ROOT, "%,.1f–%,.1f", v[0], v[v.length - 1]))
                    .append(" | ").append(v.length).append(" |\n");
        });
        return sb.toString();
    }

    private List<Series> series(Workload workload) {
        Set<Series> measured = new LinkedHashSet<>();
        figures.keySet().stream().filter(p -> p.workload() == workload).forEach(p -> measured.add(p.series()));
        Set<Series> s = new LinkedHashSet<>();
        order.stream().filter(measured::contains).forEach(s::add);
        figures.keySet().stream().filter(p -> p.workload() == workload).forEach(p -> s.add(p.series()));
        return List.copyOf(s);
    }

    private List<Integer> depths(Workload workload) {
        Set<Integer> d = new LinkedHashSet<>();
        figures.keySet().stream().filter(p -> p.workload() == workload).map(Point::depth).sorted()
                .forEach(d::add);
        return List.copyOf(d);
    }

    /**
     * The median and range of the ratio taken within each round where both series were measured
     * (the machine's speed moves between rounds; a ratio within one round takes both from the same
     * moment).
     */
    private String ratio(Ratio r, Workload workload, int depth, ToDoubleFunction<AppendLoad.Figures> rate) {
        Map<Integer, AppendLoad.Figures> over = figures.getOrDefault(new Point(r.over(), workload, depth), Map.of());
        Map<Integer, AppendLoad.Figures> under = figures.getOrDefault(new Point(r.under(), workload, depth), Map.of());
        List<Double> ratios = new ArrayList<>();
        over.forEach((round, f) -> {
            AppendLoad.Figures u = under.get(round);
            if (u != null && rate.applyAsDouble(u) > 0) {
                ratios.add(rate.applyAsDouble(f) / rate.applyAsDouble(u));
            }
        });
        if (ratios.isEmpty()) {
            return "n/a";
        }
        double[] v = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        String text = ratio(median(v));
        return v.length > 1 ? text + " (" + ratio(v[0]) + "–" + ratio(v[v.length - 1]) + ")" : text;
    }

    /** Two decimals, three below 0.1 (a ratio of 0.004 is not 0.00). */
    static String ratio(double r) {
        return String.format(Locale.ROOT, r < 0.1 ? "%.3f" : "%.2f", r);
    }

    private String cell(Point p, ToDoubleFunction<AppendLoad.Figures> figure, String pattern) {
        Collection<AppendLoad.Figures> f = figures.getOrDefault(p, Map.of()).values();
        int failed = failures.getOrDefault(p, List.of()).size();
        if (f.isEmpty()) {
            return failed > 0 ? "failed (" + failed + "×)" : "n/a";
        }
        double[] v = f.stream().mapToDouble(figure).sorted().toArray();
        String text = String.format(Locale.ROOT, pattern, median(v));
        if (v.length > 1) {
            text += String.format(Locale.ROOT, " (" + pattern + "–" + pattern + ")", v[0], v[v.length - 1]);
        }
        return failed > 0 ? text + ", failed " + failed + "×" : text;
    }

    private double median(Point p, ToDoubleFunction<AppendLoad.Figures> figure) {
        Collection<AppendLoad.Figures> f = figures.getOrDefault(p, Map.of()).values();
        return f.isEmpty() ? Double.NaN : median(f.stream().mapToDouble(figure).toArray());
    }

    private static double median(double[] values) {
        return SequentialData.median(values);
    }
}
