package io.tarn.tools.bench;

import java.util.Locale;

/**
 * The outcome of one experiment, printed as a line of text or as one JSON object. MB are 10^6 bytes
 * and Gbit 10^9 bits, as network figures are usually quoted; latencies are microseconds per operation
 * (issue to completion for asynchronous types). {@code shortCircuitBytes} are the experiment's bytes
 * the client copied straight from or to a co-located datanode's files instead of over TCP.
 */
record BenchResult(String type, boolean data, int experiment, long ops, long bytes, double seconds,
                   double p50Micros, double p99Micros, double p999Micros, long shortCircuitBytes,
                   BenchParams params) {

    static BenchResult of(String type, boolean data, int experiment, Meter meter, long shortCircuitBytes,
                          BenchParams params) {
        return new BenchResult(type, data, experiment, meter.ops(), meter.bytes(), meter.seconds(),
                meter.percentileMicros(50), meter.percentileMicros(99), meter.percentileMicros(99.9),
                shortCircuitBytes, params);
    }

    double opsPerSecond() {
        return seconds > 0 ? ops / seconds : 0;
    }

    double megabytesPerSecond() {
        return seconds > 0 ? bytes / seconds / 1e6 : 0;
    }

    double gigabitsPerSecond() {
        return seconds > 0 ? bytes * 8 / seconds / 1e9 : 0;
    }

    String text() {
        String run = params.experiments() > 1 ? " [" + experiment + "/" + params.experiments() + "]" : "";
        String throughput = data
                ? String.format(Locale.ROOT, "%d bytes in %.3f s: %.1f MB/s, %.2f Gbit/s, %.0f ops/s, %s", bytes,
                        seconds, megabytesPerSecond(), gigabitsPerSecond(), opsPerSecond(), path())
                : String.format(Locale.ROOT, "in %.3f s: %.0f ops/s", seconds, opsPerSecond());
        return String.format(Locale.ROOT, "%s%s: %d ops %s; latency p50 %.1f us, p99 %.1f us, p99.9 %.1f us",
                type, run, ops, throughput, p50Micros, p99Micros, p999Micros);
    }

    /** Which data path the bytes took: "TCP", "short-circuit" or the share copied short-circuit. */
    private String path() {
        if (shortCircuitBytes == 0) {
            return "TCP";
        }
        if (shortCircuitBytes >= bytes) {
            return "short-circuit";
        }
        return String.format(Locale.ROOT, "%.0f%% short-circuit", 100.0 * shortCircuitBytes / bytes);
    }

    String json() {
        return String.format(Locale.ROOT, "{\"type\":\"%s\",\"experiment\":%d,\"ops\":%d,\"bytes\":%d,"
                        + "\"seconds\":%.6f,\"ops_per_sec\":%.1f,\"mb_per_sec\":%.2f,\"gbit_per_sec\":%.3f,"
                        + "\"p50_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,\"short_circuit_bytes\":%d,"
                        + "\"path\":\"%s\",\"size\":%d,\"inflight\":%d,\"warmup\":%d,\"experiments\":%d}",
                type, experiment, ops, bytes, seconds, opsPerSecond(), megabytesPerSecond(), gigabitsPerSecond(),
                p50Micros, p99Micros, p999Micros, shortCircuitBytes, escape(params.path()), params.size(),
                params.inflight(), params.warmup(), params.experiments());
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
