package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.SecretHandshake;
import io.tarn.rpc.RpcClient.BodyWriter;
import io.tarn.rpc.WaitingCaller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A second connection of a {@link TcpClient}, for calls whose caller waits for the answer at once
 * ({@link io.tarn.rpc.WaitingCaller}): the calling thread writes the request and reads the answer
 * itself, polling the socket for it up to its spin budget (while {@link WaitingCaller#keepPolling}),
 * then sleeping in a selector. Through the
 * pipelined connection such a call takes four thread wake-ups (the caller wakes the I/O thread, which
 * wakes the server, which wakes the I/O thread, which wakes the caller); here it takes the server's
 * two, and on a VM whose idle vCPUs halt each wake-up costs about as much as the round trip itself
 * (docs/performance-history.md).
 *
 * <p>One call at a time: a caller that finds the lane busy, and every call while the lane cannot
 * connect, takes the pipelined connection instead. Only calls of the namenode and administration
 * protocols come here ({@link Opcode#isMetadata}), without payload. Errors are those of the
 * pipelined connection: error answers as typed exceptions, {@code tarn.rpc.timeout}, and a lost
 * connection, after which a call that was not yet sent, or a read-only one, is made on the pipelined
 * connection instead; any other fails with CONNECTION_LOST. An idle lane the server closed meanwhile
 * (a restart) is noticed before the next call is written and opened afresh.
 */
final class DirectLane {
    private static final Logger LOG = LoggerFactory.getLogger(DirectLane.class);
    /** After the lane failed to connect, calls take the pipelined connection for this long. */
    private static final long CONNECT_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** An answer buffer grown past this is not kept for the next call. */
    private static final int KEEP_BUFFER = 64 * 1024;

    private final InetSocketAddress address;
    private final TransportSecurity security;
    private final String remote;
    private final int maxFrame;
    private final int connectTimeoutMillis;
    private final long timeoutNanos;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final LongAdder answered = new LongAdder();
    private volatile boolean closed;

    // ---- owned by the thread holding busy ----
    private SocketChannel channel;
    /** Volatile for {@link #close}, which wakes a caller sleeping in it. */
    private volatile Selector selector;
    private ByteBuf out;
    private ByteBuf in;
    private long nextId = 1;
    private long connectPausedUntil;
    private boolean connectPaused;

    DirectLane(InetSocketAddress address, String remote, int maxFrame, TransportSecurity security,
            long connectTimeoutMillis, long timeoutNanos) {
        this.address = address;
        this.security = security;
        this.remote = remote;
        this.maxFrame = maxFrame;
        this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeoutMillis);
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Makes {@code call} on this thread when the lane is free.
     *
     * @param waiting how long to poll for the answer before sleeping, and whether to go on
     * @return true when the call's future is complete; false when the call must take the pipelined
     *         connection (the lane is busy, closed or cannot connect, or lost its connection before
     *         the call was sent, or before a read-only call was answered)
     */
    boolean tryCall(PendingCall<?> call, BodyWriter writer, WaitingCaller waiting) {
        if (closed || Thread.currentThread().isInterrupted() || !busy.compareAndSet(false, true)) {
            return false;
        }
        try {
            return !closed && open() && exchange(call, writer, waiting);
        } finally {
            busy.set(false);
            if (closed && busy.compareAndSet(false, true)) {
                shut(); // busy stays taken: the lane is done
            }
        }
    }

    /** Calls answered on the lane so far (for tests). */
    long answered() {
        return answered.sum();
    }

    /** Stops the lane: a caller waiting on it now fails with CONNECTION_LOST, later calls take the other connection. */
    void close() {
        closed = true;
        Selector s = selector;
        if (s != null) {
            s.wakeup();
        }
        if (busy.compareAndSet(false, true)) {
            shut();
        }
    }

    /** The lane's connection, opened if needed; false when it cannot be had now. */
    private boolean open() {
        if (channel != null) {
            if (stillOpen()) {
                return true;
            }
            drop();
        }
        long now = System.nanoTime();
        if (connectPaused && now - connectPausedUntil < 0) {
            return false;
        }
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            InetSocketAddress target = address.isUnresolved()
                    ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
            ch.socket().connect(target, connectTimeoutMillis);
            if (security.on()) {
                authenticate(ch);
            }
            ch.configureBlocking(false);
            Selector s = Selector.open();
            try {
                ch.register(s, SelectionKey.OP_READ);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
            channel = ch;
            selector = s;
            connectPaused = false;
            if (out == null) {
                out = Unpooled.directBuffer(256);
                in = Unpooled.directBuffer(1024);
            }
            return true;
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            connectPaused = true;
            connectPausedUntil = now + CONNECT_PAUSE_NANOS;
            LOG.debug("direct lane to {} cannot connect, using the pipelined connection: {}", remote, e.toString());
            return false;
        }
    }

    /**
     * The {@link SecretHandshake} on the lane's new connection, still blocking: hello, the server's
     * answer (checked), the proof. A failure leaves the call to the pipelined connection, which
     * reports it.
     */
    private void authenticate(SocketChannel ch) throws IOException {
        SecretHandshake.Client handshake = security.newClient();
        Socket socket = ch.socket();
        socket.setSoTimeout(connectTimeoutMillis);
        ByteBuf frame = Unpooled.buffer(128);
        try {
            int start = Frame.begin(frame, Opcode.AUTH_HELLO, 0, 0, 0);
            SecretHandshake.writeHello(frame, handshake.hello());
            Frame.finish(frame, start);
            OutputStream os = socket.getOutputStream();
            os.write(frame.array(), frame.arrayOffset(), frame.readableBytes());
            DataInputStream is = new DataInputStream(socket.getInputStream());
            int length = is.readInt();
            if (length < Frame.HEADER_LENGTH - Frame.LENGTH_FIELD || length > 4096) {
                throw new IOException("the server answered the authentication with a frame of " + length + " bytes");
            }
            frame.clear().writeInt(length);
            frame.ensureWritable(length);
            is.readFully(frame.array(), frame.arrayOffset() + frame.writerIndex(), length);
            frame.writerIndex(frame.writerIndex() + length);
            if (Frame.status(frame) != ErrorCode.OK.code() || Frame.opcode(frame) != Opcode.AUTH_HELLO) {
                throw new IOException("the server refused the authentication");
            }
            byte[] proof = handshake.answer(SecretHandshake.readChallenge(frame.skipBytes(Frame.HEADER_LENGTH)),
                    remote);
            frame.clear();
            start = Frame.begin(frame, Opcode.AUTH_PROOF, 0, 0, 0);
            SecretHandshake.writeProof(frame, proof);
            Frame.finish(frame, start);
            os.write(frame.array(), frame.arrayOffset(), frame.readableBytes());
        } finally {
            frame.release();
        }
    }

    /** An idle lane has nothing to read: end of stream means the server closed it meanwhile. */
    private boolean stillOpen() {
        try {
            in.clear();
            return channel.read(in.internalNioBuffer(0, in.capacity())) == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Writes the request and reads its answer; see {@link #tryCall}. */
    private boolean exchange(PendingCall<?> call, BodyWriter writer, WaitingCaller waiting) {
        long start = System.nanoTime();
        long deadline = start + timeoutNanos;
        long id = nextId++;
        out.clear();
        int at = Frame.begin(out, call.opcode, id, 0, 0);
        try {
            writer.write(out);
        } catch (RuntimeException e) {
            call.future.completeExceptionally(e);
            return true;
        }
        Frame.finish(out, at);
        int sent = 0;
        try {
            int length = out.readableBytes();
            while (sent < length) {
                int n = channel.write(out.internalNioBuffer(sent, length - sent));
                sent += n;
                if (n == 0) {
                    if (System.nanoTime() - deadline >= 0) {
                        return timedOut(call);
                    }
                    Thread.onSpinWait();
                }
            }
            return receive(call, id, waiting, start + waiting.spinNanos(), deadline);
        } catch (ClosedByInterruptException e) {
            drop();
            InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting for Tarn");
            interrupted.initCause(e);
            call.future.completeExceptionally(interrupted);
            return true;
        } catch (IOException e) {
            drop();
            if (sent == 0 || Opcode.isReadOnly(call.opcode)) {
                return false; // never reached the server, or harmless twice
            }
            call.future.completeExceptionally(CallErrors.lost(remote, e));
            return true;
        }
    }

    private boolean receive(PendingCall<?> call, long id, WaitingCaller waiting, long spinUntil, long deadline)
            throws IOException {
        in.clear();
        int frameLength = -1;
        while (frameLength < 0 || in.writerIndex() < frameLength) {
            int n = channel.read(in.internalNioBuffer(in.writerIndex(), in.writableBytes()));
            if (n < 0) {
                throw new IOException("closed by the server");
            }
            in.writerIndex(in.writerIndex() + n);
            if (frameLength < 0 && in.writerIndex() >= Frame.LENGTH_FIELD) {
                long length = in.getUnsignedInt(0) + Frame.LENGTH_FIELD;
                if (length < Frame.HEADER_LENGTH || length > maxFrame) {
                    return malformed(call, "frame of " + length + " bytes");
                }
                frameLength = (int) length;
                in.ensureWritable(Math.max(0, frameLength - in.writerIndex()));
            }
            if (n == 0) {
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    return timedOut(call);
                }
                if (closed) {
                    drop();
                    call.future.completeExceptionally(new TarnException(ErrorCode.CONNECTION_LOST,
                            "client for " + remote + " is closed"));
                    return true;
                }
                if (now - spinUntil < 0 && waiting.keepPolling()) {
                    Thread.onSpinWait();
                } else {
                    selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - now)));
                    selector.selectedKeys().clear();
                }
            }
        }
        if (in.writerIndex() != frameLength || (Frame.flags(in) & Frame.FLAG_RESPONSE) == 0
                || Frame.requestId(in) != id || Frame.opcode(in) != call.opcode) {
            return malformed(call, "not the answer to request " + id);
        }
        answered.increment();
        int status = Frame.status(in);
        in.readerIndex(Frame.HEADER_LENGTH);
        if (status != ErrorCode.OK.code()) {
            ErrorCode code = ErrorCode.of(status);
            call.future.completeExceptionally(CallErrors.answer(code, in, remote));
            if (code == ErrorCode.MALFORMED_REQUEST || code == ErrorCode.UNSUPPORTED_VERSION) {
                drop(); // the server closes the connection after these
            }
            return true;
        }
        call.decodeAndComplete(in, remote, null);
        if (in.refCnt() != 1 || in.capacity() > KEEP_BUFFER) {
            in.release(); // what the decoder kept stays its own
            in = Unpooled.directBuffer(1024);
        }
        return true;
    }

    private boolean timedOut(PendingCall<?> call) {
        drop(); // a late answer must not be read as the next call's
        call.future.completeExceptionally(CallErrors.timeout(remote, call.opcode, timeoutNanos));
        return true;
    }

    private boolean malformed(PendingCall<?> call, String what) {
        LOG.warn("closing the direct lane to {}: malformed answer to {}: {}", remote, Opcode.name(call.opcode), what);
        drop();
        call.future.completeExceptionally(CallErrors.lost(remote, new IOException("malformed answer: " + what)));
        return true;
    }

    /** Closes the connection; the next call opens a new one. */
    private void drop() {
        closeQuietly(selector);
        closeQuietly(channel);
        selector = null;
        channel = null;
    }

    private void shut() {
        drop();
        if (out != null) {
            out.release();
            in.release();
            out = null;
            in = null;
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.trace("closing {}", c, e);
            }
        }
    }
}
