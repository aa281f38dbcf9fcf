package io.tarn.rpc.tcp;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.tarn.rpc.RpcServer;

import java.net.InetSocketAddress;
import java.util.List;

/** A listening TCP socket and the connections it accepted. */
final class TcpServer implements RpcServer {
    private final TcpTransport transport;
    private final ChannelGroup connections = new DefaultChannelGroup("tarn-connections", GlobalEventExecutor.INSTANCE);
    private volatile Channel listener;
    /** Limits the lines peers can make this server log by sending malformed frames. */
    private final LogLimiter protocolErrors = new LogLimiter();
    private final LogLimiter refusals = new LogLimiter();

    TcpServer(TcpTransport transport) {
        this.transport = transport;
    }

    void bound(Channel ch) {
        this.listener = ch;
    }

    LogLimiter protocolErrors() {
        return protocolErrors;
    }

    /** Limits the lines peers can make this server log by failing to authenticate or overstepping. */
    LogLimiter refusals() {
        return refusals;
    }

    void accepted(Channel ch) {
        connections.add(ch);
    }

    /** The connections accepted and still open (for tests). */
    List<Channel> connections() {
        return List.copyOf(connections);
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    @Override
    public int connectionCount() {
        return connections.size();
    }

    @Override
    public void close() {
        Channel l = listener;
        if (l != null) {
            l.close().syncUninterruptibly();
        }
        connections.close().awaitUninterruptibly();
        transport.forget(this);
    }

    @Override
    public String toString() {
        return "TcpServer[" + (listener == null ? "unbound" : listener.localAddress()) + "]";
    }
}
