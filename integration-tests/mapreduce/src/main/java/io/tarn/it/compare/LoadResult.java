package io.tarn.it.compare;

/**
 * One load point: completed operations per second over the measured window, and the latency of
 * each operation from issue to answer at the 50th and 99th percentiles, in microseconds.
 */
public record LoadResult(double opsPerSecond, double p50Micros, double p99Micros) {
}
