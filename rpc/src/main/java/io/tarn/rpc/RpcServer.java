package io.tarn.rpc;

import java.net.InetSocketAddress;

/** A listening endpoint created by {@link Transport#bind}; closing it closes its connections. */
public interface RpcServer extends AutoCloseable {
    /** The bound address (with the real port when port 0 was asked for). */
    InetSocketAddress localAddress();

    /** Connections currently open. */
    int connectionCount();

    @Override
    void close();
}
