package io.tarn.rpc.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ResourceLeakDetector;
import io.tarn.common.config.LeakDetection;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.rpc.IoThreads;
import io.tarn.rpc.PayloadPlacement;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TCP transport: Netty with native epoll where available (NIO otherwise).
 *
 * <p>One instance owns one event-loop group; its servers and clients share it. Frames are decoded
 * by length without copying ({@link FrameDecoder}); responses and requests written in one event-loop
 * pass are flushed once.
 */
public final class TcpTransport implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** Netty's own switch for its leak detector (relocated with Netty in the shaded adapter). */
    static final String NETTY_LEAK_PROPERTY = "io.netty.leakDetection.level";

    private final TarnConfig config;
    private final EventLoopGroup group;
    private final boolean epoll;
    private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
    private final TransportSecurity security;
    private final TransportTls tls;
    private final int maxConnections;
    private final int maxServerInflight;
    private final long idleNanos;
    private volatile boolean closed;

    public TcpTransport(TarnConfig config) {
        this(config, 0);
    }

    /**
     * @param pollNanos how long an I/O thread goes on polling after its last work before it sleeps
     *                  ({@link PollingSelectStrategy}); 0 sleeps at once. Used with native epoll only.
     */
    public TcpTransport(TarnConfig config, long pollNanos) {
        this.config = config;
        this.security = TransportSecurity.of(config);
        this.tls = TransportTls.of(config);
        this.maxConnections = maxConnections(config.get(TarnKeys.RPC_SERVER_MAX_CONNECTIONS));
        this.maxServerInflight = config.get(TarnKeys.RPC_SERVER_MAX_INFLIGHT);
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(config.get(TarnKeys.RPC_IDLE_TIMEOUT));
        int threads = config.get(TarnKeys.RPC_IO_THREADS);
        if (threads == 0) {
            threads = Runtime.getRuntime().availableProcessors();
        }
        applyLeakDetection(config.get(TarnKeys.RPC_LEAK_DETECTION));
        this.epoll = Epoll.isAvailable();
        IoHandlerFactory factory = !epoll ? NioIoHandler.newFactory() : pollNanos > 0
                ? EpollIoHandler.newFactory(0, () -> new PollingSelectStrategy(pollNanos))
                : EpollIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(threads,
                IoThreads.factory("tarn-tcp-" + INSTANCES.incrementAndGet()), factory);
        if (!epoll) {
            LOG.debug("native epoll unavailable ({}), using NIO", Epoll.unavailabilityCause().toString());
        }
    }

    /**
     * Sets Netty's leak detector for the JVM, unless the JVM was started with an explicit level
     * ({@value #NETTY_LEAK_PROPERTY}), which is left alone: tests and leak hunts set it that way.
     * Netty's default samples one buffer in 128 with a stack trace and wraps it; with several
     * buffers per call, that costs metadata calls about a sixth of their CPU.
     */
    static void applyLeakDetection(LeakDetection wanted) {
        if (System.getProperty(NETTY_LEAK_PROPERTY) != null) {
            return;
        }
        ResourceLeakDetector.Level level = switch (wanted) {
            case OFF -> ResourceLeakDetector.Level.DISABLED;
            case SIMPLE -> ResourceLeakDetector.Level.SIMPLE;
            case ADVANCED -> ResourceLeakDetector.Level.ADVANCED;
            case PARANOID -> ResourceLeakDetector.Level.PARANOID;
        };
        if (ResourceLeakDetector.getLevel() != level) {
            ResourceLeakDetector.setLevel(level);
        }
    }

    TarnConfig config() {
        return config;
    }

    /**
     * {@code tarn.rpc.server.max.connections}: as configured, or for 0 nine tenths of this process's
     * open-file soft limit (16,384 when it cannot be read).
     */
    static int maxConnections(int configured) {
        if (configured > 0) {
            return configured;
        }
        long limit = openFileLimit();
        return limit <= 0 ? 16_384 : (int) Math.max(16, Math.min(1 << 20, limit * 9 / 10));
    }

    /** The soft limit on open files from /proc/self/limits, or -1 when unknown or unlimited. */
    static long openFileLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String[] f = line.substring("Max open files".length()).trim().split("\\s+");
                    return "unlimited".equals(f[0]) ? -1 : Long.parseLong(f[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot read the open-file limit: {}", e.toString());
        }
        return -1;
    }

    /** How long a client leaves a connection idle (nothing in flight) before it closes it: half the server's. */
    long clientIdleNanos() {
        return idleNanos / 2;
    }

    TransportSecurity security() {
        return security;
    }

    TransportTls tls() {
        return tls;
    }

    int maxFrame() {
        return Math.toIntExact(config.get(TarnKeys.RPC_MAX_FRAME));
    }

    @Override
    public RpcServer bind(InetSocketAddress address, RpcHandler handler) throws IOException {
        ensureOpen();
        security.checkCanServe();
        tls.checkCanServe();
        Class<? extends ServerChannel> channelClass =
                epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        TcpServer server = new TcpServer(this, config.get(TarnKeys.RPC_SERVER_MAX_PARTIAL_BYTES));
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(channelClass)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 8 << 20))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!server.admit(ch, maxConnections)) {
                            return;
                        }
                        InetSocketAddress peer = ch.remoteAddress();
                        sizeSendBuffer(ch, peer == null ? null : peer.getAddress());
                        ServerHandler serving = new ServerHandler(server, handler, security, maxServerInflight);
                        if (tls.on()) {
                            ch.pipeline().addLast("tls", tls.serverHandler(ch.alloc()));
                            ch.pipeline().addLast("tls-refusals", new TransportTls.Refusals(server.refusals()));
                        }
                        FrameDecoder frames;
                        if (handler instanceof PayloadPlacement placement && !tls.on()) {
                            frames = new FrameDecoder(maxFrame(), FramePlacer.requests(placement, serving));
                            ch.config().setRecvByteBufAllocator(
                                    new PlacingRecvAllocator(ch.config().getRecvByteBufAllocator(), frames));
                        } else {
                            frames = new FrameDecoder(maxFrame());
                        }
                        ch.pipeline().addLast("frames", frames);
                        if (security.on()) {
                            frames.limitUntilAuthenticated(ServerAuth.MAX_FRAME);
                            server.awaitsAuthentication(ch);
                        }
                        serving.frames(frames);
                        frames.chargeTo(server.partialFrames(), serving::roomGranted);
                        ch.pipeline().addLast("idle", new IdleStateHandler(idleNanos, 0, 0, TimeUnit.NANOSECONDS));
                        ch.pipeline().addLast("server", serving);
                    }
                });
        InetSocketAddress resolved = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        ChannelFuture f = b.bind(resolved).awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new IOException("cannot listen on " + resolved + ": " + f.cause().getMessage(), f.cause());
        }
        server.bound(f.channel());
        open.add(server);
        return server;
    }

    @Override
    public RpcClient connect(InetSocketAddress address) {
        ensureOpen();
        TcpClient client = new TcpClient(this, address, group.next());
        open.add(client);
        return client;
    }

    Bootstrap clientBootstrap(EventLoop loop) {
        return new Bootstrap()
                .group(loop)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 8 << 20))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, config.get(TarnKeys.RPC_CONNECT_TIMEOUT)));
    }

    /**
     * Sets a connection's socket send buffer as configured for its peer: {@code
     * tarn.rpc.send.buffer.local} when the peer is on this host, else {@code tarn.rpc.send.buffer}
     * (0 leaves the kernel's autotuning). A value the socket refuses is logged and left.
     */
    void sizeSendBuffer(SocketChannel ch, InetAddress peer) {
        long size = sendBufferFor(peer);
        if (size <= 0) {
            return;
        }
        try {
            ch.config().setSendBufferSize((int) Math.min(Integer.MAX_VALUE, size));
        } catch (RuntimeException e) {
            LOG.debug("cannot set the send buffer of the connection to {} to {} bytes: {}", peer, size, e.toString());
        }
    }

    /** The send buffer configured for connections to {@code peer}, or 0 to leave it to the kernel. */
    long sendBufferFor(InetAddress peer) {
        long local = config.get(TarnKeys.RPC_SEND_BUFFER_LOCAL);
        long remote = config.get(TarnKeys.RPC_SEND_BUFFER);
        if (local == remote || peer == null) {
            return remote; // nothing to decide: no look at the host's interfaces
        }
        return isThisHost(peer) ? local : remote;
    }

    /** True when {@code address} is a loopback address or one of this host's own interface addresses. */
    static boolean isThisHost(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    void forget(AutoCloseable c) {
        open.remove(c);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("transport is closed");
        }
    }

    @Override
    public String name() {
        return "tcp";
    }

    /** True when this transport uses native epoll. */
    public boolean nativeEpoll() {
        return epoll;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (AutoCloseable c : open.toArray(new AutoCloseable[0])) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.debug("closing {}", c, e);
            }
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The peer's IP address, for the audit log. */
    static String hostOf(Channel ch) {
        return ch != null && ch.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
                ? a.getAddress().getHostAddress() : "?";
    }

    static String describe(Channel ch) {
        return ch == null || ch.remoteAddress() == null ? "?" : ch.remoteAddress().toString();
    }
}
