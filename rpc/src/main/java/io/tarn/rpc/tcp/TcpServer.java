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
import java.util.concurrent.atomic.AtomicInteger;

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

    /**
     * Most refused connections left open at once for their peers to read why: above the cap, each
     * holds a descriptor for up to {@link LastWord#LINGER_MS}, so a flood is closed at once instead.
     */
    static final int MAX_LINGERING = 32;
    /** Refused connections lingering now. */
    private final AtomicInteger lingering = new AtomicInteger();
    /** Bytes held in frames that have not arrived whole, over all connections. */
    private final PartialFrameBudget partialFrames;

    TcpServer(TcpTransport transport, long maxPartialBytes) {
        this.transport = transport;
        this.partialFrames = new PartialFrameBudget(maxPartialBytes);
    }

    /** The bound on bytes held in partial frames, shared by this server's connections. */
    PartialFrameBudget partialFrames() {
        return partialFrames;
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
                // A connection that proved nothing yields its place to one that may, and its descriptor
                // at once: lingering until its peer closes would take one more per admitted connection.
                victim.eventLoop().execute(() -> TcpRequest.sendErrorAndCloseNow(victim, ErrorCode.UNAUTHENTICATED,
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
            String why = "the server at " + localAddress() + " has " + open + " connections open, the most it allows "
                    + "(tarn.rpc.server.max.connections = " + max + "); try again later";
            if (lingering.incrementAndGet() <= MAX_LINGERING) {
                // Lingers so the peer reads why rather than a reset, holding the descriptor up to a second.
                ch.closeFuture().addListener(f -> lingering.decrementAndGet());
                TcpRequest.sendErrorAndClose(ch, ErrorCode.SERVER_BUSY, why);
            } else {
                lingering.decrementAndGet(); // a flood: descriptors matter more than the last word
                TcpRequest.sendErrorAndCloseNow(ch, ErrorCode.SERVER_BUSY, why);
            }
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
