package io.tarn.replication.sim;

import java.util.Arrays;

/** Collects operation latencies (simulated microseconds) for percentiles. */
final class LatencyRecorder {

    private long[] values = new long[1024];
    private int size;

    void record(long micros) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = micros;
    }

    void clear() {
        size = 0;
    }

    int count() {
        return size;
    }

    void addAll(LatencyRecorder other) {
        for (int i = 0; i < other.size; i++) {
            record(other.values[i]);
        }
    }

    long percentile(double p) {
        if (size == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * size) - 1;
        return sorted[Math.max(0, Math.min(size - 1, index))];
    }
}
