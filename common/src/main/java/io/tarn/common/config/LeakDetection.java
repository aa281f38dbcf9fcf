package io.tarn.common.config;

/**
 * How closely Netty watches Tarn's network buffers for leaks: see {@code tarn.rpc.leak.detection}.
 * The levels are Netty's own (its {@code ResourceLeakDetector.Level}), from none to every buffer.
 */
public enum LeakDetection {
    /** No tracking: the production setting, free of the detector's per-buffer cost. */
    OFF,
    /** Netty's default: a sample of buffers (1 in 128), reported with where they were allocated. */
    SIMPLE,
    /** A sample of buffers, reported with their recent accesses too. */
    ADVANCED,
    /** Every buffer, with its recent accesses: for tests and for hunting a leak, many times slower. */
    PARANOID
}
