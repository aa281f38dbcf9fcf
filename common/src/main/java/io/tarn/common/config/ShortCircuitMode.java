package io.tarn.common.config;

/** Whether a client copies block data straight from co-located DRAM datanodes: see {@code tarn.client.shortcircuit}. */
public enum ShortCircuitMode {
    /** Short-circuit for a DRAM datanode on this host whose files this process can open; TCP otherwise. */
    AUTO,
    /** Always TCP. */
    OFF
}
