package io.tarn.rpc.tcp;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.tarn.common.error.ErrorCode;
import io.tarn.rpc.RpcServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/** A listening TCP socket and the connections it accepted. */
final class TcpServer implements RpcServer {
    private static final Logger LOG = LoggerFactory.getLogger(TcpServer.class);
    private final TcpTransport transport;
    private final ChannelGroup connections = new DefaultChannelGroup("tarn-connections", GlobalEventExecutor.INSTANCE);
    private volatile Channel listener;
    /** Limits the lines peers can make this server log by sending malformed frames. */
    private final LogLimiter protocolErrors = new LogLimiter();
    private final LogLimiter refusals = new LogLimiter();
    /** Connections that have not authenticated yet, oldest first: the first to go when the cap is reached. */
    private final ConcurrentLinkedDeque<Channel> unauthenticated = new ConcurrentLinkedDeque<>();

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

    /**
     * A connection was accepted: kept when fewer than {@code max} are open, else answered
     * SERVER_BUSY and closed (logged, rate-limited); true when kept.
     */
    boolean admit(Channel ch, int max) {
        int open = connections.size();
        if (open >= max) {
            Channel victim = unauthenticated.pollFirst();
            if (victim != null) {
                // A connection that proved nothing yields its place to one that may.
                victim.eventLoop().execute(() -> TcpRequest.sendErrorAndClose(victim, ErrorCode.UNAUTHENTICATED,
                        "closed before it authenticated: the server at " + localAddress() + " is at its connection "
                                + "cap (tarn.rpc.server.max.connections = " + max + ") and needed the room"));
                connections.add(ch);
                return true;
            }
            long left = refusals.tryLog();
            if (left >= 0) {
                LOG.warn("refused a connection from {} to {}: {} connections are open, the most "
                        + "tarn.rpc.server.max.connections allows{}", TcpTransport.describe(ch), this, open,
                        left == 0 ? "" : " (" + left + " more refusals since the last line, not logged)");
            }
            TcpRequest.sendErrorAndClose(ch, ErrorCode.SERVER_BUSY, "the server at " + localAddress() + " has "
                    + open + " connections open, the most it allows (tarn.rpc.server.max.connections = " + max
                    + "); try again later");
            return false;
        }
        connections.add(ch);
        return true;
    }

    /** A connection of an authenticating server that has not authenticated yet. */
    void awaitsAuthentication(Channel ch) {
        unauthenticated.add(ch);
        ch.closeFuture().addListener(f -> unauthenticated.remove(ch));
    }

    /** The connection authenticated: it no longer yields its place to a new one. */
    void authenticated(Channel ch) {
        unauthenticated.remove(ch);
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
