package io.tarn.common.config;

/** Which transport carries RPC and block data: see {@code tarn.transport}. */
public enum TransportKind {
    /** RDMA when the host has a device, the DiSNI library and the needed JVM flags; TCP otherwise. */
    AUTO,
    /** Netty over TCP: works everywhere, the default path. */
    TCP,
    /** DiSNI/DaRPC over RDMA; fails fast with the reason when RDMA is unavailable. */
    RDMA
}
