package io.tarn.it.compare;

import io.tarn.shaded.io.netty.bootstrap.Bootstrap;
import io.tarn.shaded.io.netty.bootstrap.ServerBootstrap;
import io.tarn.shaded.io.netty.buffer.ByteBuf;
import io.tarn.shaded.io.netty.buffer.Unpooled;
import io.tarn.shaded.io.netty.channel.Channel;
import io.tarn.shaded.io.netty.channel.ChannelHandlerContext;
import io.tarn.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.tarn.shaded.io.netty.channel.ChannelInitializer;
import io.tarn.shaded.io.netty.channel.ChannelOption;
import io.tarn.shaded.io.netty.channel.EventLoopGroup;
import io.tarn.shaded.io.netty.channel.IoHandlerFactory;
import io.tarn.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.tarn.shaded.io.netty.channel.ServerChannel;
import io.tarn.shaded.io.netty.channel.epoll.Epoll;
import io.tarn.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.tarn.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.tarn.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.tarn.shaded.io.netty.channel.nio.NioIoHandler;
import io.tarn.shaded.io.netty.channel.socket.SocketChannel;
import io.tarn.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.tarn.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.tarn.shaded.io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.tarn.shaded.io.netty.util.ResourceLeakDetector;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Baseline (a): the least an RPC over Netty can cost here. A Netty echo server and client over
 * loopback, one connection, messages of {@link #MESSAGE_BYTES} each way (a 4-byte length, then the
 * body), N outstanding: the client sends N messages, and for each answer it decodes sends the next;
 * the server decodes each request and writes a response buffer of its own for it. Both ends flush
 * once per read batch. No payload decoding, no threads besides one event loop per end: what is left
 * is what any framed RPC over Netty pays per call.
 *
 * <p>It uses the Netty the Tarn client uses in this run: the copy relocated into the shaded adapter
 * jar (4.2, native epoll when it loads, NIO otherwise), so Tarn and its baseline differ only by
 * what Tarn does on top of the transport.
 */
final class NettyEchoBaseline {
    /**
     * Bytes of each request and each answer, length included: between a getFile request (about 40
     * bytes: Tarn's 20-byte frame header and the path) and its answer (about 100: header and FileStatus).
     */
    static final int MESSAGE_BYTES = 80;
    private static final int LENGTH_BYTES = 4;
    /** Netty's leak-detector switch as the relocated copy in the shaded adapter reads it. */
    private static final String SHADED_LEAK_PROPERTY = "io.tarn.shaded.io.netty.leakDetection.level";

    private NettyEchoBaseline() {
    }

    /** "epoll" or "NIO": what the relocated Netty uses here. */
    static String transport() {
        return Epoll.isAvailable() ? "epoll" : "NIO";
    }

    static LoadResult run(int inflight, double warmupSeconds, double seconds) throws IOException, InterruptedException {
        sameLeakDetectionAsTarn();
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        EventLoopGroup serverGroup = new MultiThreadIoEventLoopGroup(1, factory);
        EventLoopGroup clientGroup = new MultiThreadIoEventLoopGroup(1, factory);
        try {
            Class<? extends ServerChannel> serverType = epoll ? EpollServerSocketChannel.class
                    : NioServerSocketChannel.class;
            Channel server = new ServerBootstrap().group(serverGroup).channel(serverType)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(frameDecoder(), new EchoServerHandler());
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            LoadDriver.Window window = new LoadDriver.Window(warmupSeconds, seconds);
            EchoClientHandler client = new EchoClientHandler(inflight, window);
            new Bootstrap().group(clientGroup).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(frameDecoder(), client);
                        }
                    })
                    .connect(server.localAddress()).sync();
            long waitMillis = (long) ((warmupSeconds + seconds) * 1000) + 30_000;
            try {
                client.done.get(waitMillis, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                LoadDriver.rethrow(e.getCause());
            } catch (TimeoutException e) {
                throw new IOException("Netty echo baseline did not finish within " + waitMillis + " ms");
            }
            server.close().sync();
            return window.result(client.latencies.getTotalCount(), client.latencies);
        } finally {
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * Runs with the buffer leak detector as the Tarn client sets it for this same Netty copy
     * ({@code tarn.rpc.leak.detection}, off by default) whether or not a Tarn client started
     * before: both sides of a ratio pay the same for it. An explicit JVM setting is left alone,
     * as Tarn leaves it.
     */
    private static void sameLeakDetectionAsTarn() {
        if (System.getProperty(SHADED_LEAK_PROPERTY) == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    /** Splits the stream into messages: a 4-byte length, then that many bytes. */
    private static LengthFieldBasedFrameDecoder frameDecoder() {
        return new LengthFieldBasedFrameDecoder(1024, 0, LENGTH_BYTES, 0, 0);
    }

    /** Answers each request with a response of its own (a copy), flushing once per read batch. */
    private static final class EchoServerHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf request = (ByteBuf) msg;
            try {
                ctx.write(ctx.alloc().directBuffer(MESSAGE_BYTES).writeBytes(request));
            } finally {
                request.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /**
     * Keeps {@code inflight} messages outstanding until the window ends, then waits for the last
     * answers and closes. Answers come back in order on the one connection, so the send times
     * are a ring read in order. Runs on the client's event loop only.
     */
    private static final class EchoClientHandler extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Histogram latencies = new Histogram(3);
        private final ByteBuf message = Unpooled.directBuffer(MESSAGE_BYTES)
                .writeInt(MESSAGE_BYTES - LENGTH_BYTES).writeZero(MESSAGE_BYTES - LENGTH_BYTES);
        private final LoadDriver.Window window;
        private final long[] sentAt;
        private int head;
        private int tail;
        private int outstanding;

        EchoClientHandler(int inflight, LoadDriver.Window window) {
            this.window = window;
            this.sentAt = new long[inflight];
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            for (int i = 0; i < sentAt.length; i++) {
                send(ctx, System.nanoTime());
            }
            ctx.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((ByteBuf) msg).release();
            long now = System.nanoTime();
            long start = sentAt[head];
            head = (head + 1) % sentAt.length;
            outstanding--;
            if (window.measures(start, now)) {
                latencies.recordValue(now - start);
            }
            if (now < window.end) {
                send(ctx, now);
            }
            if (outstanding == 0) {
                ctx.close();
                done.complete(null);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            message.release();
            done.completeExceptionally(new IOException("echo connection closed with " + outstanding + " outstanding"));
        }

        private void send(ChannelHandlerContext ctx, long now) {
            sentAt[tail] = now;
            tail = (tail + 1) % sentAt.length;
            outstanding++;
            ctx.write(message.retainedDuplicate());
        }
    }
}
