package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.PlatformDependent;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.rpc.IoThreads;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.WaitingCaller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Client side of one TCP connection, pipelined.
 *
 * <p>Threading: callers encode their request on their own thread and put it on a lock-free
 * multi-producer queue; one task on the connection's event loop drains the queue, assigns request
 * ids, registers the calls and writes them with a single flush. Everything else (the id map, the
 * timeout order, connection state) is owned by the event loop, so no lock is taken per call.
 * Responses complete their futures on the event loop.
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
    private final Semaphore slots;
    private final int maxInflight;
    private final Queue<Call<?>> submitted = PlatformDependent.newMpscQueue();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    /** Calls of callers that wait for them at once, on a connection of their own; null when off. */
    private final DirectLane lane;

    // ---- owned by the event loop ----
    /** Calls in flight, under {@link #slotKey} of their id: use {@link #track}, {@link #tracked}, {@link #untrack}. */
    private final LongObjectHashMap<Call<?>> inflight = new LongObjectHashMap<>();
    private final ArrayDeque<Call<?>> bySendTime = new ArrayDeque<>();
    /** Volatile for callers choosing the {@link #lane}, which they use only while this is open. */
    private volatile Channel channel;
    private boolean connecting;
    private long nextId = 1;
    /** When calls written by {@link #sendNow} are flushed. */
    private final FlushPacer pacer = new FlushPacer();
    private ScheduledFuture<?> timeoutCheck;
    private volatile boolean closed;

    TcpClient(TcpTransport transport, InetSocketAddress address, EventLoop loop) {
        this.transport = transport;
        this.address = address;
        this.remote = address.getHostString() + ":" + address.getPort();
        this.loop = loop;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(transport.config().get(TarnKeys.RPC_TIMEOUT));
        this.maxInflight = transport.config().get(TarnKeys.RPC_MAX_INFLIGHT);
        this.slots = new Semaphore(maxInflight);
        this.lane = transport.config().get(TarnKeys.CLIENT_WAIT_DIRECT)
                ? new DirectLane(address, remote, transport.maxFrame(),
                        transport.config().get(TarnKeys.RPC_CONNECT_TIMEOUT), timeoutNanos)
                : null;
    }

    @Override
    public <T> CompletableFuture<T> call(int opcode, BodyWriter writer, ResponseDecoder<T> decoder) {
        return call(opcode, writer, null, decoder);
    }

    @Override
    public <T> CompletableFuture<T> call(int opcode, BodyWriter writer, ByteBuf payload, ResponseDecoder<T> decoder) {
        return submit(new Call<>(opcode, decoder, payload, null), writer);
    }

    @Override
    public <T> CompletableFuture<T> callInto(int opcode, BodyWriter writer, ResponseTarget target,
            ResponseDecoder<T> decoder) {
        return submit(new Call<>(opcode, decoder, null, target), writer);
    }

    private <T> CompletableFuture<T> submit(Call<T> call, BodyWriter writer) {
        int opcode = call.opcode;
        ByteBuf payload = call.payload;
        if (closed) {
            call.releaseBuffers();
            call.future.completeExceptionally(new TarnException(ErrorCode.CONNECTION_LOST,
                    "client for " + remote + " is closed"));
            return call.future;
        }
        if (lane != null && payload == null && call.target == null && Opcode.isMetadata(opcode)) {
            Channel ch = channel;
            WaitingCaller waiting = WaitingCaller.current();
            if (waiting != null && ch != null && ch.isActive() && lane.tryCall(call, writer, waiting)) {
                return call.future;
            }
        }
        if (!acquireSlot(call)) {
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
            slots.release();
            call.future.completeExceptionally(e);
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
            } catch (java.util.concurrent.RejectedExecutionException e) {
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

    /**
     * Takes a call slot, waiting for one only on a thread that may block. An event-loop thread (of
     * any transport: callbacks of other clients' futures run there) never waits: the slot it waits
     * for may be freed only by that very thread, and waiting would stall every connection it serves.
     */
    private boolean acquireSlot(Call<?> call) {
        if (slots.tryAcquire()) {
            return true;
        }
        if (IoThreads.onIoThread()) {
            call.releaseBuffers();
            call.future.completeExceptionally(new TarnException(ErrorCode.SERVER_BUSY, maxInflight
                    + " calls already in flight to " + remote + " (tarn.rpc.max.inflight)"));
            return false;
        }
        try {
            if (slots.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        call.releaseBuffers();
        call.future.completeExceptionally(TarnException.of(ErrorCode.TIMEOUT, "no free call slot to " + remote
                + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (" + maxInflight + " calls in flight)"));
        return false;
    }

    /** Event loop: sends everything submitted, connecting first when needed. */
    private void drain() {
        drainScheduled.set(false);
        if (closed) {
            // A call that passed the closed check while close() ran: fail it rather than reconnect.
            failSubmitted(new TarnException(ErrorCode.CONNECTION_LOST, "client for " + remote + " is closed"));
            return;
        }
        if (channel == null || !channel.isActive()) {
            if (submitted.isEmpty()) {
                return;
            }
            if (!connecting) {
                connect();
            }
            return;
        }
        Channel ch = channel;
        boolean wrote = pacer.takeUnflushed();
        Call<?> call;
        while ((call = submitted.poll()) != null) {
            send(ch, call);
            wrote = true;
        }
        if (wrote) {
            ch.flush();
        }
    }

    /**
     * The key a call's id is kept under in {@link #inflight}: the id times an odd constant (a
     * one-to-one map). Ids are consecutive, and the map, which probes linearly and indexes by the
     * key's low bits, would keep them in one contiguous run of slots; removing the oldest (answers
     * come mostly in order) then shifts through the whole run, one step per call in flight, which
     * took a fifth of a client's I/O thread at 128 getFile calls in flight (docs/performance.md).
     * Scattered keys keep the runs short.
     */
    static long slotKey(long id) {
        return id * 0x9E3779B97F4A7C15L;
    }

    /** Event loop: keeps {@code call} in flight under {@code id}. */
    private void track(long id, Call<?> call) {
        inflight.put(slotKey(id), call);
    }

    /** Event loop: the call in flight under {@code id}, or null. */
    private Call<?> tracked(long id) {
        return inflight.get(slotKey(id));
    }

    /** Event loop: takes the call in flight under {@code id} out of the map, or null. */
    private Call<?> untrack(long id) {
        return inflight.remove(slotKey(id));
    }

    /** Event loop: registers the call under a new id and writes it, without flushing. */
    private void send(Channel ch, Call<?> call) {
        long id = nextId++;
        call.id = id;
        call.buf.setLong(call.buf.readerIndex() + Frame.REQUEST_ID_OFFSET, id);
        if (!call.resent && call.payload == null && Opcode.isReadOnly(call.opcode)) {
            call.keep = call.buf.retain(); // kept past the write, for sending once more
            call.start = call.buf.readerIndex();
        }
        call.settled = false;
        track(id, call);
        bySendTime.addLast(call);
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
     * @return false when the call must take the queue instead (no open channel yet, or earlier calls
     *         still queued, which go first)
     */
    private boolean sendNow(Call<?> call) {
        Channel ch = channel;
        if (closed || ch == null || !ch.isActive() || !submitted.isEmpty()) {
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
        ChannelFuture f = transport.clientBootstrap(loop).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                transport.sizeSendBuffer(ch, target.getAddress());
                FrameDecoder frames = new FrameDecoder(transport.maxFrame(), new AnswerPlacer());
                ch.config().setRecvByteBufAllocator(
                        new PlacingRecvAllocator(ch.config().getRecvByteBufAllocator(), frames));
                ch.pipeline().addLast("frames", frames);
                ch.pipeline().addLast("client", new ResponseHandler());
            }
        }).connect(target);
        f.addListener(done -> {
            connecting = false;
            if (done.isSuccess() && !closed) {
                channel = f.channel();
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
                failSubmitted(new TarnException(ErrorCode.CONNECTION_LOST, "cannot connect to " + remote + ": " + why,
                        cause));
            }
        });
    }

    /**
     * Event loop: fails calls whose deadline passed. Calls leave in send order, so only the head is
     * checked. A call counts as finished once it is settled (left the id map), not when its future
     * is done: a future the caller cancelled still holds its slot until the answer or the deadline.
     */
    private void expire() {
        long now = System.nanoTime();
        Call<?> head;
        while (true) {
            trimSettled();
            head = bySendTime.peekFirst();
            if (head == null || now - head.deadline < 0) {
                return;
            }
            bySendTime.pollFirst();
            untrack(head.id);
            head.settled = true;
            head.dropKept();
            head.dropPlaced();
            complete(head, null, timeoutError(remote, head.opcode, timeoutNanos));
        }
    }

    /** The error of a call that got no answer within {@code tarn.rpc.timeout}. */
    static IOException timeoutError(String remote, int opcode, long timeoutNanos) {
        return TarnException.of(ErrorCode.TIMEOUT, "no response from " + remote + " to " + Opcode.name(opcode)
                + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (tarn.rpc.timeout)");
    }

    /** The error of a call whose connection was lost before its answer; {@code why} may be null. */
    static TarnException lostError(String remote, Throwable why) {
        return new TarnException(ErrorCode.CONNECTION_LOST, "connection to " + remote + " lost"
                + (why == null ? "" : ": " + why.getMessage()), why);
    }

    /** The typed error an error answer stands for: its message, or the code's description. */
    static IOException answerError(ErrorCode code, ByteBuf body, String remote) {
        String message;
        try {
            message = Wire.readString(body);
        } catch (RuntimeException e) {
            message = "";
        }
        return TarnException.of(code, message.isEmpty() ? code.description() + " (" + remote + ")" : message);
    }

    /**
     * Event loop: drops answered calls from the head of the send order. Answers mostly come in send
     * order, so the queue stays about as long as the calls in flight, instead of holding every
     * answered call (and what it decoded) until the next timeout check.
     */
    private void trimSettled() {
        Call<?> head;
        while ((head = bySendTime.peekFirst()) != null && head.settled) {
            bySendTime.pollFirst();
        }
    }

    /** Event loop: one response frame read from {@code ch} (which may no longer be the current channel). */
    private void onResponse(Channel ch, ByteBuf frame) {
        try {
            if (frame.readableBytes() < Frame.HEADER_LENGTH || (Frame.flags(frame) & Frame.FLAG_RESPONSE) == 0) {
                LOG.warn("closing connection to {}: malformed response frame", remote);
                ch.close();
                return;
            }
            Call<?> call = untrack(Frame.requestId(frame));
            if (call == null) {
                return; // timed out earlier; the late answer is dropped
            }
            call.settled = true;
            trimSettled();
            call.dropKept();
            call.dropPlaced(); // named memory for an answer that came the usual way
            int status = Frame.status(frame);
            // The frame is this response's own slice of the read buffer: step over the header instead
            // of slicing again (one object less per call).
            ByteBuf body = frame.skipBytes(Frame.HEADER_LENGTH);
            if (status != ErrorCode.OK.code()) {
                ErrorCode code = ErrorCode.of(status);
                IOException error = answerError(code, body, remote);
                complete(call, null, error);
                if (code == ErrorCode.MALFORMED_REQUEST || code == ErrorCode.UNSUPPORTED_VERSION) {
                    // The server closes the connection after these; let the next call open a fresh one now.
                    onClosed(ch, new IOException("server rejected a request: " + error.getMessage()));
                    ch.close();
                }
            } else {
                // The slot is free before the future completes: a callback chaining the next call
                // on this I/O thread must find it (it cannot wait for one).
                call.decodeAndComplete(body, remote, slots);
            }
        } finally {
            frame.release();
        }
    }

    /**
     * Event loop: an OK answer whose body was received into the memory its call named. Fewer bytes
     * than the body were placed only when the call was given up meanwhile (then it is settled and
     * no longer in the map) or its future was cancelled.
     */
    private void onPlaced(FrameDecoder.PlacedFrame placed) {
        ByteBuf header = placed.frame();
        try {
            Call<?> call = untrack(Frame.requestId(header));
            if (call == null) {
                return; // timed out earlier; its memory was released then
            }
            call.settled = true;
            trimSettled();
            call.dropKept();
            ByteBuf memory = call.placed;
            call.placed = null;
            long bodyLength = header.getUnsignedInt(header.readerIndex() + Frame.LENGTH_OFFSET) + Frame.LENGTH_FIELD
                    - Frame.HEADER_LENGTH;
            if (memory == null || placed.placedBytes() != bodyLength) {
                if (memory != null) {
                    memory.release();
                }
                complete(call, null, new TarnException(ErrorCode.CONNECTION_LOST, "the answer to "
                        + Opcode.name(call.opcode) + " from " + remote + " was dropped: the call was cancelled"));
                return;
            }
            memory.writerIndex(memory.writerIndex() + placed.placedBytes());
            try {
                call.decodeAndComplete(memory, remote, slots);
            } finally {
                memory.release();
            }
        } finally {
            header.release();
        }
    }

    private <T> void complete(Call<T> call, T value, Throwable error) {
        slots.release();
        if (error != null) {
            call.future.completeExceptionally(error);
        } else {
            call.future.complete(value);
        }
    }

    private void failSubmitted(Throwable error) {
        Call<?> call;
        while ((call = submitted.poll()) != null) {
            call.releaseBuffers();
            complete(call, null, error);
        }
    }

    private void onClosed(Channel ch, Throwable why) {
        if (ch != channel) {
            return;
        }
        channel = null;
        TarnException error = lostError(remote, why);
        for (Call<?> call : inflight.values()) {
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
                complete(call, null, error);
            }
        }
        inflight.clear();
        bySendTime.clear();
        if (closed) {
            failSubmitted(new TarnException(ErrorCode.CONNECTION_LOST, "client for " + remote + " is closed"));
        } else if (!submitted.isEmpty()) {
            drain(); // reconnect for calls that arrived meanwhile
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
        return bySendTime.size();
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
            failSubmitted(new TarnException(ErrorCode.CONNECTION_LOST, "client for " + remote + " is closed"));
        };
        if (loop.inEventLoop()) {
            shutdown.run(); // from a callback on this loop: waiting for a task queued behind us would deadlock
            return;
        }
        try {
            loop.submit(shutdown).awaitUninterruptibly(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            synchronized (submitted) {
                failSubmitted(new TarnException(ErrorCode.CONNECTION_LOST, "client for " + remote + " is closed"));
            }
        }
    }

    @Override
    public String toString() {
        return "TcpClient[" + remote + "]";
    }

    /** Reads responses of this connection. */
    private final class ResponseHandler extends ChannelInboundHandlerAdapter {
        private Throwable failure;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            pacer.read();
            if (msg instanceof FrameDecoder.PlacedFrame placed) {
                onPlaced(placed);
            } else {
                onResponse(ctx.channel(), (ByteBuf) msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.fireChannelReadComplete();
            if (pacer.batchEndedShouldFlush()) {
                ctx.flush();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            onClosed(ctx.channel(), failure);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure = cause instanceof IOException || cause instanceof io.netty.handler.codec.DecoderException
                    ? cause : new IOException(cause.toString(), cause);
            LOG.debug("connection to {} failed: {}", remote, cause.toString());
            ctx.close();
        }
    }

    /**
     * Places OK answers whose call names memory for them ({@link #callInto}). Asks a call's
     * {@link ResponseTarget} once; the memory it names is the call's until the call is settled.
     */
    private final class AnswerPlacer implements FramePlacer {
        @Override
        public int headLength(ByteBuf frame) {
            return (Frame.flags(frame) & Frame.FLAG_RESPONSE) != 0 && Frame.status(frame) == ErrorCode.OK.code()
                    ? 0 : -1;
        }

        @Override
        public io.tarn.rpc.PayloadPlacement.Target place(ByteBuf frame, int headLength, int payloadLength) {
            Call<?> call = tracked(Frame.requestId(frame));
            if (call == null || call.target == null || call.future.isDone()) {
                return null;
            }
            ResponseTarget target = call.target;
            call.target = null; // asked at most once
            ByteBuf memory = target.claim(payloadLength);
            if (memory == null) {
                return null;
            }
            if (memory.isReadable() || memory.writableBytes() < payloadLength) {
                String what = memory.readableBytes() + " readable and " + memory.writableBytes() + " writable bytes";
                memory.release();
                throw new IllegalStateException("memory named for an answer of " + payloadLength + " bytes has "
                        + what);
            }
            call.placed = memory;
            return new PlacedAnswer(memory.retainedSlice(memory.writerIndex(), payloadLength).writerIndex(0), call);
        }
    }

    /** The memory one answer's body is received into, while its call waits for it. */
    private record PlacedAnswer(ByteBuf memory, Call<?> call) implements io.tarn.rpc.PayloadPlacement.Target {
        @Override
        public boolean stillValid() {
            return !call.settled && !call.future.isDone();
        }
    }

    /** One call in flight. */
    static final class Call<T> {
        final int opcode;
        final ResponseDecoder<T> decoder;
        final CompletableFuture<T> future = new CompletableFuture<>();
        ByteBuf buf;
        ByteBuf payload;
        /** Names memory for the answer's body, until asked. */
        ResponseTarget target;
        /** The memory the answer's body is being received into, held until the call is settled. */
        ByteBuf placed;
        long id;
        long deadline;
        /** A read-only call's request, kept until answered so that it can be sent once more. */
        ByteBuf keep;
        /** Where the request starts in {@link #keep}. */
        int start;
        /** Sent a second time already: never again. */
        boolean resent;
        /** Answered or given up since it was last sent (event loop only). */
        boolean settled;

        Call(int opcode, ResponseDecoder<T> decoder, ByteBuf payload, ResponseTarget target) {
            this.opcode = opcode;
            this.decoder = decoder;
            this.payload = payload;
            this.target = target;
        }

        /**
         * Decodes the answer, frees the call's slot, then completes the future. Any throwable from
         * the decoder fails the call (it must not leave the future pending forever). A decoded value
         * that nobody can receive any more (the caller cancelled the future) is released when it is
         * reference-counted, such as a retained slice of block data.
         */
        void decodeAndComplete(ByteBuf body, String remote, Semaphore slots) {
            T value;
            try {
                value = decoder.decode(body);
            } catch (Throwable e) {
                release(slots);
                future.completeExceptionally(new TarnException(ErrorCode.MALFORMED_REQUEST,
                        "malformed " + Opcode.name(opcode) + " response from " + remote + ": " + e.getMessage(), e));
                return;
            }
            release(slots);
            if (!future.complete(value)) {
                ReferenceCountUtil.release(value);
            }
        }

        /** Frees the call's slot; a call on the direct lane took none ({@code slots} null). */
        private static void release(Semaphore slots) {
            if (slots != null) {
                slots.release();
            }
        }

        /** The call is answered (or given up): its kept request is not needed any more. */
        void dropKept() {
            if (keep != null) {
                keep.release();
                keep = null;
            }
        }

        /** The call is given up or sent again: the memory its answer was being placed into goes back. */
        void dropPlaced() {
            if (placed != null) {
                placed.release();
                placed = null;
            }
        }

        void releaseBuffers() {
            dropKept();
            if (buf != null) {
                buf.release();
                buf = null;
            }
            if (payload != null) {
                payload.release();
                payload = null;
            }
        }
    }
}
