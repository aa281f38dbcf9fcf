package io.tarn.common.config;

/** How a DRAM datanode backs its regions: see {@code tarn.datanode.dram.mode}. */
public enum DramMode {
    /** Memory-mapped files under {@code tarn.datanode.dram.path} when writable, else direct memory. */
    AUTO,
    /** Memory-mapped files only; the datanode refuses to start when the path is unusable. */
    MMAP,
    /** JVM direct memory (lost when the process exits). */
    DIRECT
}
