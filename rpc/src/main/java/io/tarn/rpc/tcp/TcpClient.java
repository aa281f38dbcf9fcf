package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.NotSentException;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.WaitingCaller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.net.ssl.SSLException;

/**
 * Client side of one TCP connection, pipelined.
 *
 * <p>Threading: callers encode their request on their own thread and put it on a lock-free
 * multi-producer queue; one task on the connection's event loop drains the queue, assigns request
 * ids, registers the calls and writes them with a single flush. Everything else (the id map, the
 * timeout order, connection state) is owned by the event loop, so no lock is taken per call.
 * Responses complete their futures on the event loop.
 *
 * <p>The parts: {@link CallSlots} bounds the calls in flight ({@code tarn.rpc.max.inflight}),
 * {@link CallTable} holds them by id and in send order, {@link AnswerHandler} matches answers to
 * them; this class submits, sends and flushes, connects, and fails or resends calls when the
 * connection is lost.
 *
 * <p>A call made on an I/O thread when every slot is taken neither blocks that thread nor fails:
 * it waits in the line of {@link CallSlots} and is sent, in order, as answers free slots.
 *
 * <p>A read-only call ({@link Opcode#isReadOnly}) keeps its encoded request until answered: when
 * the connection is lost first (typically because the server restarted, which the client learns
 * only when the next call fails), it is sent once more on a new connection instead of failing.
 *
 * <p>A namespace call whose caller waits for it at once ({@link WaitingCaller}) is made on the
 * caller's own thread over a second connection, the {@link DirectLane}, when that is free and
 * {@code tarn.client.wait.direct} is on; the future it returns is then complete.
 */
final class TcpClient implements RpcClient {
    private static final Logger LOG = LoggerFactory.getLogger(TcpClient.class);

    private final TcpTransport transport;
    private final InetSocketAddress address;
    private final String remote;
    private final EventLoop loop;
    private final long timeoutNanos;
    private final CallSlots slots;
    private final Queue<PendingCall<?>> submitted = SubmitQueues.newMpscQueue();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    /** Calls of callers that wait for them at once, on a connection of their own; null when off. */
    private final DirectLane lane;

    // ---- owned by the event loop ----
    /** Calls in flight. */
    private final CallTable inflight = new CallTable();
    /** Volatile for callers choosing the {@link #lane}, which they use only while this is open. */
    private volatile Channel channel;
    private boolean connecting;
    /** When calls written by {@link #sendNow} are flushed. */
    private final FlushPacer pacer = new FlushPacer();
    private ScheduledFuture<?> timeoutCheck;
    private volatile boolean closed;
    /** Calls written so far, and as last seen by {@link #expire}, which closes a connection idle too long. */
    private long sent;
    private long sentWhenChecked;
    private long idleSince;
    private final long idleNanos;

    TcpClient(TcpTransport transport, InetSocketAddress address, EventLoop loop) {
        this.transport = transport;
        this.address = address;
        this.remote = address.getHostString() + ":" + address.getPort();
        this.loop = loop;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(transport.config().get(TarnKeys.RPC_TIMEOUT));
        this.idleNanos = transport.clientIdleNanos();
        this.slots = new CallSlots(transport.config().get(TarnKeys.RPC_MAX_INFLIGHT), timeoutNanos, remote);
        // With TLS every byte goes through the TLS engine: no plain side lane.
        this.lane = transport.config().get(TarnKeys.CLIENT_WAIT_DIRECT) && !transport.tls().on()
                ? new DirectLane(address, remote, transport.maxFrame(), transport.security(),
                        transport.config().get(TarnKeys.RPC_CONNECT_TIMEOUT), timeoutNanos)
                : null;
    }

    @Override
    public <T> CompletableFuture<T> call(int opcode, BodyWriter writer, ResponseDecoder<T> decoder) {
        return call(opcode, writer, null, decoder);
    }

    @Override
    public <T> CompletableFuture<T> call(int opcode, BodyWriter writer, ByteBuf payload, ResponseDecoder<T> decoder) {
        return submit(new PendingCall<>(opcode, decoder, payload, null), writer);
    }

    @Override
    public <T> CompletableFuture<T> callInto(int opcode, BodyWriter writer, ResponseTarget target,
            ResponseDecoder<T> decoder) {
        return submit(new PendingCall<>(opcode, decoder, null, target), writer);
    }

    private <T> CompletableFuture<T> submit(PendingCall<T> call, BodyWriter writer) {
        int opcode = call.opcode;
        ByteBuf payload = call.payload;
        if (closed) {
            call.releaseBuffers();
            call.future.completeExceptionally(CallErrors.closed(remote));
            return call.future;
        }
        if (lane != null && payload == null && call.target == null && Opcode.isMetadata(opcode)) {
            Channel ch = channel;
            WaitingCaller waiting = WaitingCaller.current();
            if (waiting != null && ch != null && ch.isActive() && lane.tryCall(call, writer, waiting)) {
                return call.future;
            }
        }
        if (!slots.take(call)) {
            return call.future;
        }
        ByteBuf buf = ByteBufAllocator.DEFAULT.ioBuffer(128);
        try {
            int start = Frame.begin(buf, opcode, 0, 0, 0);
            writer.write(buf);
            int payloadBytes = payload == null ? 0 : payload.readableBytes();
            buf.setInt(start + Frame.LENGTH_OFFSET, buf.writerIndex() - start - Frame.LENGTH_FIELD + payloadBytes);
        } catch (RuntimeException e) {
            buf.release();
            call.releaseBuffers();
            call.fail(e, slots);
            return call.future;
        }
        call.buf = buf;
        call.deadline = System.nanoTime() + timeoutNanos;
        if (loop.inEventLoop() && sendNow(call)) {
            return call.future;
        }
        submitted.offer(call);
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainTask);
            } catch (RejectedExecutionException e) {
                // The transport shut down after the closed check above: nothing will drain the queue.
                // The queue has one consumer, normally the loop; with the loop gone, callers take turns.
                drainScheduled.set(false);
                synchronized (submitted) {
                    failSubmitted(new TarnException(ErrorCode.CONNECTION_LOST, "transport of the client for "
                            + remote + " is shut down"));
                }
            }
        }
        return call.future;
    }

    /** Event loop: sends everything submitted, connecting first when needed. */
    private void drain() {
        drainScheduled.set(false);
        if (closed) {
            // A call that passed the closed check while close() ran: fail it rather than reconnect.
            failUnsent(CallErrors.closed(remote));
            return;
        }
        if (channel == null || !channel.isActive()) {
            if (submitted.isEmpty() && !slots.hasWaiting()) {
                return;
            }
            if (!connecting) {
                connect();
            }
            return;
        }
        Channel ch = channel;
        boolean wrote = pacer.takeUnflushed();
        PendingCall<?> call;
        while ((call = submitted.poll()) != null) {
            if (slots.mustWait(call)) {
                slots.join(call);
            } else {
                send(ch, call);
                wrote = true;
            }
        }
        if (slots.hasWaiting()) {
            wrote |= sendWaiting(ch);
            pacer.takeUnflushed(); // flushed below
        }
        if (wrote) {
            ch.flush();
        }
    }

    /**
     * Event loop: sends calls from the head of the line of {@link CallSlots} while slots are free;
     * true when it wrote any. Each gets its full timeout from now on, as the call of a thread that
     * waited for its slot does. Flushes part-way as {@link #sendNow} does; the caller flushes the rest.
     */
    private boolean sendWaiting(Channel ch) {
        boolean wrote = false;
        PendingCall<?> call;
        while ((call = slots.nextWithSlot()) != null) {
            call.deadline = System.nanoTime() + timeoutNanos;
            send(ch, call);
            wrote = true;
            if (pacer.wroteShouldFlush(FlushPacer.clientFlushAt(inflight.size()))) {
                ch.flush();
            }
        }
        return wrote;
    }

    /**
     * Event loop: slots may have been freed (answers came, calls timed out); sends calls waiting
     * for one. Within a read batch the batch's end flushes them.
     */
    void slotsFreed() {
        Channel ch = channel;
        if (closed || ch == null || !ch.isActive() || !slots.hasWaiting()) {
            return;
        }
        if (sendWaiting(ch) && !pacer.inReadBatch() && pacer.takeUnflushed()) {
            ch.flush();
        }
    }

    /** Event loop: registers the call under a new id and writes it, without flushing. */
    private void send(Channel ch, PendingCall<?> call) {
        sent++;
        long id = inflight.track(call);
        call.buf.setLong(call.buf.readerIndex() + Frame.REQUEST_ID_OFFSET, id);
        if (!call.resent && call.payload == null && Opcode.isReadOnly(call.opcode)) {
            call.keep = call.buf.retain(); // kept past the write, for sending once more
            call.start = call.buf.readerIndex();
        }
        ch.write(call.buf, ch.voidPromise());
        call.buf = null;
        if (call.payload != null) {
            ch.write(call.payload, ch.voidPromise());
            call.payload = null;
        }
    }

    /**
     * Event loop: writes a call issued on this connection's own event loop straight to the channel,
     * as the callback of an earlier answer does when it chains the next call. No queue and no task:
     * the write is flushed part-way through or at the end of the read batch being handled
     * ({@link FlushPacer}), or (outside a read batch) by a drain task.
     *
     * @return false when the call must take the queue instead (no open channel yet, earlier calls
     *         still queued or waiting for a slot, which go first, or no slot for this one)
     */
    private boolean sendNow(PendingCall<?> call) {
        Channel ch = channel;
        if (closed || ch == null || !ch.isActive() || !submitted.isEmpty() || slots.mustWait(call)) {
            return false;
        }
        send(ch, call);
        if (pacer.wroteShouldFlush(FlushPacer.clientFlushAt(inflight.size()))) {
            ch.flush();
        } else if (!pacer.inReadBatch() && drainScheduled.compareAndSet(false, true)) {
            loop.execute(drainTask);
        }
        return true;
    }

    private void connect() {
        connecting = true;
        InetSocketAddress target = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        TransportSecurity security = transport.security();
        ClientAuth auth = security.on() ? new ClientAuth(security.newClient(), remote,
                transport.config().get(TarnKeys.RPC_CONNECT_TIMEOUT)) : null;
        TransportTls tls = transport.tls();
        ChannelFuture f = transport.clientBootstrap(loop).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                transport.sizeSendBuffer(ch, target.getAddress());
                AnswerHandler answers = new AnswerHandler(TcpClient.this, inflight, slots, pacer, remote);
                FrameDecoder frames = new FrameDecoder(transport.maxFrame(), answers);
                if (tls.on()) {
                    ch.pipeline().addLast("tls", tls.clientHandler(ch.alloc(), target.getHostString(),
                            target.getPort()));
                } else {
                    ch.config().setRecvByteBufAllocator(
                            new PlacingRecvAllocator(ch.config().getRecvByteBufAllocator(), frames));
                }
                ch.pipeline().addLast("frames", frames);
                if (auth != null) {
                    ch.pipeline().addLast("auth", auth);
                }
                ch.pipeline().addLast("client", answers);
            }
        }).connect(target);
        f.addListener(connected -> {
            if (tls.on() && connected.isSuccess() && !closed) {
                // The TLS handshake first, then (inside it) the authentication.
                SslHandler handler = f.channel().pipeline().get(SslHandler.class);
                handler.handshakeFuture().addListener(secured -> {
                    if (!secured.isSuccess()) {
                        SSLException why = CallErrors.tlsFailure(secured.cause());
                        opened(f, loop.newFailedFuture(CallErrors.tlsRefused(remote,
                                why != null ? why : secured.cause())));
                    } else if (auth != null) {
                        auth.done().addListener(authenticated -> opened(f, authenticated));
                    } else {
                        opened(f, secured);
                    }
                });
            } else if (auth != null && connected.isSuccess() && !closed) {
                auth.done().addListener(authenticated -> opened(f, authenticated));
            } else {
                opened(f, connected);
            }
        });
    }

    /** Event loop: the connection {@code f} opened (and authenticated), or {@code done} says why not. */
    private void opened(ChannelFuture f, Future<?> done) {
        connecting = false;
        if (done.isSuccess() && !closed) {
            channel = f.channel();
            idleSince = System.nanoTime();
            if (timeoutCheck == null) {
                long period = Math.max(TimeUnit.MILLISECONDS.toNanos(5), Math.min(timeoutNanos / 8,
                        TimeUnit.MILLISECONDS.toNanos(500)));
                timeoutCheck = loop.scheduleAtFixedRate(this::expire, period, period, TimeUnit.NANOSECONDS);
            }
            drain();
        } else {
            if (done.isSuccess()) {
                f.channel().close();
            }
            Throwable cause = done.cause();
            String why = cause == null ? "client closed" : cause.getMessage();
            LOG.debug("cannot connect to {}: {}", remote, why);
            SSLException tlsFailed = CallErrors.tlsFailure(cause);
            if (cause instanceof AuthenticationException refused) {
                failUnsent(new AuthenticationException(refused.getMessage()));
            } else if (tlsFailed != null) {
                failUnsent(CallErrors.tlsRefused(remote, tlsFailed));
            } else if (cause instanceof TarnException busy && busy.code() == ErrorCode.SERVER_BUSY) {
                failUnsent(new NotSentException(ErrorCode.SERVER_BUSY, busy.getMessage(), busy));
            } else {
                failUnsent(new NotSentException(ErrorCode.CONNECTION_LOST, "cannot connect to " + remote + ": "
                        + why, cause));
            }
        }
    }

    /**
     * Event loop: fails calls whose deadline passed. A call counts as finished once it is settled
     * (left the id map), not when its future is done: a future the caller cancelled still holds its
     * slot until the answer or the deadline. The slots freed go to calls waiting in line; those
     * still waiting past their deadline fail (not while the connection is being opened again: then
     * they wait for it, as queued calls do).
     */
    private void expire() {
        long now = System.nanoTime();
        PendingCall<?> late;
        while ((late = inflight.expireHead(now)) != null) {
            late.dropKept();
            late.dropPlaced();
            late.fail(CallErrors.timeout(remote, late.opcode, timeoutNanos), slots);
        }
        Channel ch = channel;
        if (slots.hasWaiting() && ch != null && ch.isActive()) {
            slotsFreed();
            slots.expire(now);
        }
        closeIfIdle(ch, now);
    }

    /**
     * Event loop: closes the connection when nothing was sent or in flight on it for half of
     * {@code tarn.rpc.idle.timeout}, before the server closes it (which could cross a call being
     * sent); the next call opens a new one.
     */
    private void closeIfIdle(Channel ch, long now) {
        if (ch == null || !ch.isActive()) {
            return;
        }
        if (sent != sentWhenChecked || inflight.size() > 0 || !submitted.isEmpty() || slots.hasWaiting()) {
            sentWhenChecked = sent;
            idleSince = now;
        } else if (now - idleSince >= idleNanos) {
            LOG.debug("closing the connection to {}: idle for {} ms", remote, TimeUnit.NANOSECONDS.toMillis(idleNanos));
            ch.close();
        }
    }

    /** Event loop: fails every call not sent yet, waiting in line or queued. */
    private void failUnsent(Throwable error) {
        slots.failWaiting(error);
        failSubmitted(error);
    }

    private void failSubmitted(Throwable error) {
        PendingCall<?> call;
        while ((call = submitted.poll()) != null) {
            call.releaseBuffers();
            call.fail(error, slots);
        }
    }

    /**
     * Event loop: connection {@code ch} is gone (or the server rejected a request on it, and closes
     * it). Unless it was replaced already, the calls in flight on it fail with CONNECTION_LOST, except
     * read-only ones sent once only: those are sent once more, on a new connection.
     */
    void onClosed(Channel ch, Throwable why) {
        if (ch != channel) {
            return;
        }
        channel = null;
        TarnException error = CallErrors.lost(remote, why);
        for (PendingCall<?> call : inflight.values()) {
            if (call.keep != null && !closed) {
                // Read-only: send it once more on a new connection (drain below connects), with its
                // slot still held and a fresh deadline.
                call.buf = call.keep.readerIndex(call.start);
                call.keep = null;
                call.dropPlaced(); // the answer on the new connection is received as usual
                call.resent = true;
                call.deadline = System.nanoTime() + timeoutNanos;
                submitted.offer(call);
            } else {
                call.dropKept();
                call.dropPlaced();
                call.fail(error, slots);
            }
        }
        inflight.clear();
        if (closed) {
            failUnsent(CallErrors.closed(remote));
        } else if (!submitted.isEmpty() || slots.hasWaiting()) {
            drain(); // reconnect for calls that arrived or wait meanwhile
        }
    }

    /** The event loop owning this connection (for tests). */
    EventLoop eventLoop() {
        return loop;
    }

    /** Event loop only: the open connection, or null (for tests). */
    Channel channel() {
        return channel;
    }

    /** Calls answered on the direct lane so far (for tests). */
    long directAnswers() {
        return lane == null ? 0 : lane.answered();
    }

    /** Event loop only: calls still in the send-order queue of the timeout check (for tests). */
    int trackedForTimeout() {
        return inflight.trackedForTimeout();
    }

    /** Event loop only: calls in flight (for tests). */
    int inFlight() {
        return inflight.size();
    }

    /** Event loop only: calls waiting in line for a slot (for tests). */
    int waitingForSlot() {
        return slots.waiting();
    }

    /** Slots free now (for tests). */
    int freeSlots() {
        return slots.availablePermits();
    }

    @Override
    public String remote() {
        return remote;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        transport.forget(this);
        if (lane != null) {
            lane.close();
        }
        Runnable shutdown = () -> {
            if (timeoutCheck != null) {
                timeoutCheck.cancel(false);
            }
            Channel ch = channel;
            if (ch != null) {
                ch.close();
                onClosed(ch, null);
            }
            failUnsent(CallErrors.closed(remote));
        };
        if (loop.inEventLoop()) {
            shutdown.run(); // from a callback on this loop: waiting for a task queued behind us would deadlock
            return;
        }
        try {
            loop.submit(shutdown).awaitUninterruptibly(5, TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            // The loop is shutting down and takes no task: fail its line here too, like the queue.
            synchronized (submitted) {
                failUnsent(CallErrors.closed(remote));
            }
        }
    }

    @Override
    public String toString() {
        return "TcpClient[" + remote + "]";
    }
}
