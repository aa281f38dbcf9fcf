package io.tarn.rpc;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Moves RPC frames (and block data inside them) between Tarn processes: the transport SPI.
 *
 * <p>One instance owns its I/O threads; servers and clients it creates share them. Implementations:
 * {@link io.tarn.rpc.tcp.TcpTransport} (Netty over TCP, the default) and, where hardware exists,
 * RDMA. {@link Transports#create} picks one from configuration.
 */
public interface Transport extends AutoCloseable {
    /** Listens on {@code address} (port 0 for an ephemeral port) and serves requests with {@code handler}. */
    RpcServer bind(InetSocketAddress address, RpcHandler handler) throws IOException;

    /** A client for the server at {@code address}; connects lazily on the first call. */
    RpcClient connect(InetSocketAddress address);

    /** "tcp" or "rdma". */
    String name();

    /** Closes every server and client of this transport and stops its threads. */
    @Override
    void close();
}
