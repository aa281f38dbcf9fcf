package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.PayloadPlacement;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Answers received straight into the memory their call names ({@link RpcClient#callInto}), over
 * real loopback sockets: large bodies land there byte for byte, everything else comes the usual
 * way, and memory whose call was given up (timed out, connection lost) gets no further byte.
 */
class AnswerPlacementTest {
    /** body: length[i32] seed[i64]; answers {@code length} pseudo-random bytes from that seed. */
    static final int FETCH = 2100;
    /** Always answers FILE_NOT_FOUND. */
    static final int FAIL = 2101;

    Transport transport;
    RpcServer server;

    @AfterEach
    void stop() {
        if (transport != null) {
            transport.close();
        }
    }

    private void startServer(TarnConfig config) throws Exception {
        transport = Transports.create(config);
        server = transport.bind(new InetSocketAddress("127.0.0.1", 0), new RpcHandler() {
            @Override
            public void handle(RpcRequest r) {
                if (r.opcode() == FAIL) {
                    r.fail(ErrorCode.FILE_NOT_FOUND, "nothing here");
                    return;
                }
                int length = r.body().readInt();
                long seed = r.body().readLong();
                ByteBuf out = r.response();
                out.writeBytes(data(seed, length));
                r.send(out);
            }
        });
    }

    private static TarnConfig config(long timeoutMillis) {
        return TarnConfig.builder().set(TarnKeys.TRANSPORT, TransportKind.TCP).set(TarnKeys.RPC_IO_THREADS, 2)
                .set(TarnKeys.RPC_TIMEOUT, timeoutMillis).build();
    }

    private static byte[] data(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Names fresh direct memory with room to spare, keeping a reference of the test's own. */
    private static final class Memory implements RpcClient.ResponseTarget {
        final AtomicInteger asked = new AtomicInteger();
        volatile ByteBuf memory;

        @Override
        public ByteBuf claim(int bodyLength) {
            asked.incrementAndGet();
            memory = Unpooled.directBuffer(bodyLength + 64).setZero(0, bodyLength + 64);
            return memory.retain();
        }
    }

    /** What a decoder saw: whether the body was the named memory, and its bytes. */
    record Seen(boolean inNamedMemory, byte[] bytes) {
    }

    private static CompletableFuture<Seen> fetch(RpcClient c, Memory m, int length, long seed) {
        return c.callInto(FETCH, b -> b.writeInt(length).writeLong(seed), m,
                body -> new Seen(body == m.memory, ByteBufUtil.getBytes(body)));
    }

    @Test
    void largeAnswersLandInTheNamedMemoryByteForByteBetweenOtherAnswers() throws Exception {
        startServer(config(30_000));
        RpcClient c = transport.connect(server.localAddress());
        int[] sizes = {100, PayloadPlacement.MIN_PAYLOAD, 100_000, 1 << 20, (3 << 20) + 7, 1 << 20};
        List<Memory> memories = new ArrayList<>();
        List<CompletableFuture<Seen>> fetches = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int s = 0; s < sizes.length; s++) {
                Memory m = new Memory();
                memories.add(m);
                fetches.add(fetch(c, m, sizes[s], round * 10L + s));
            }
        }
        for (int i = 0; i < fetches.size(); i++) {
            int length = sizes[i % sizes.length];
            Seen seen = fetches.get(i).join();
            assertThat(seen.bytes()).isEqualTo(data((i / sizes.length) * 10L + i % sizes.length, length));
            Memory m = memories.get(i);
            if (length < PayloadPlacement.MIN_PAYLOAD) {
                assertThat(m.asked).hasValue(0);
            }
            if (length >= 1 << 20) {
                // Cannot arrive in one read of Netty's size: always placed, and nothing written past the body.
                assertThat(seen.inNamedMemory()).isTrue();
                assertThat(m.memory.getLong(length)).isZero();
            }
            if (seen.inNamedMemory()) {
                // The transport releases its reference just after the decoder ran.
                eventually(() -> m.memory.refCnt() == 1);
                m.memory.release();
            }
        }
    }

    @Test
    void refusedAndFailedAnswersComeTheUsualWay() throws Exception {
        startServer(config(30_000));
        RpcClient c = transport.connect(server.localAddress());
        AtomicInteger asked = new AtomicInteger();
        byte[] got = c.callInto(FETCH, b -> b.writeInt(2 << 20).writeLong(3), len -> {
            asked.incrementAndGet();
            return null;
        }, ByteBufUtil::getBytes).join();
        assertThat(got).isEqualTo(data(3, 2 << 20));
        assertThat(asked).hasValue(1);

        Memory m = new Memory();
        assertThatThrownBy(() -> c.callInto(FAIL, b -> b.writeInt(2 << 20).writeLong(3), m, ByteBufUtil::getBytes)
                .join()).isInstanceOf(CompletionException.class)
                .satisfies(e -> assertThat(((TarnError) e.getCause()).code()).isEqualTo(ErrorCode.FILE_NOT_FOUND));
        assertThat(m.asked).hasValue(0);
    }

    /**
     * A scripted server: answers the first request with the header and the first part of a 1 MiB
     * body only; the rest follows once the test says so, then the answer to the second request.
     */
    @Test
    void anAnswerFinishingAfterItsCallTimedOutNeverTouchesTheMemoryAndTheConnectionGoesOn() throws Exception {
        transport = Transports.create(config(300));
        int length = 1 << 20;
        int early = 100_000;
        byte[] body = data(5, length);
        CompletableFuture<Void> sendRest = new CompletableFuture<>();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> script = CompletableFuture.runAsync(() -> {
                try (Socket s = listener.accept()) {
                    s.setTcpNoDelay(true);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    long first = readRequestId(in);
                    out.write(header(first, length));
                    out.write(body, 0, early);
                    out.flush();
                    long second = readRequestId(in);
                    sendRest.join();
                    out.write(body, early, length - early);
                    out.write(header(second, 8));
                    out.write(ByteBuffer.allocate(8).putLong(77).array());
                    out.flush();
                    in.read(); // until the client closes
                } catch (java.io.IOException e) {
                    throw new CompletionException(e);
                }
            });
            RpcClient c = transport.connect(new InetSocketAddress("127.0.0.1", listener.getLocalPort()));
            Memory m = new Memory();
            CompletableFuture<Seen> late = fetch(c, m, length, 5);
            assertThatThrownBy(late::join).satisfies(
                    e -> assertThat(((TarnError) e.getCause()).code()).isEqualTo(ErrorCode.TIMEOUT));
            assertThat(m.asked).hasValue(1);
            // The first part landed; nothing after it.
            byte[] before = ByteBufUtil.getBytes(m.memory, 0, length);
            assertThat(java.util.Arrays.copyOf(before, early)).isEqualTo(java.util.Arrays.copyOf(body, early));
            assertThat(java.util.Arrays.copyOfRange(before, early, length)).containsOnly(0);
            CompletableFuture<Long> next = c.call(FETCH, b -> b.writeInt(8).writeLong(1), ByteBuf::readLong);
            sendRest.complete(null);
            assertThat(next.join()).isEqualTo(77L);
            // Everything the server sent after the timeout was read and dropped, not written.
            assertThat(ByteBufUtil.getBytes(m.memory, 0, length)).isEqualTo(before);
            assertThat(m.memory.refCnt()).isEqualTo(1);
            m.memory.release();
            c.close();
            script.join();
        }
    }

    @Test
    void aConnectionLostMidAnswerFailsTheCallAndReleasesTheMemory() throws Exception {
        transport = Transports.create(config(30_000));
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> script = CompletableFuture.runAsync(() -> {
                try (Socket s = listener.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    out.write(header(readRequestId(in), 1 << 20));
                    out.write(new byte[200_000]);
                    out.flush();
                } catch (java.io.IOException e) {
                    throw new CompletionException(e);
                }
            });
            RpcClient c = transport.connect(new InetSocketAddress("127.0.0.1", listener.getLocalPort()));
            Memory m = new Memory();
            assertThatThrownBy(() -> fetch(c, m, 1 << 20, 1).join()).satisfies(
                    e -> assertThat(((TarnError) e.getCause()).code()).isEqualTo(ErrorCode.CONNECTION_LOST));
            script.join();
            assertThat(m.asked).hasValue(1);
            assertThat(m.memory.refCnt()).isEqualTo(1);
            m.memory.release();
        }
    }

    /**
     * A read-only call whose answer breaks off mid-body is sent again on a new connection; that
     * answer arrives whole, the usual way, and the memory the first one was placed into is given
     * back (a reader must then copy, not take the half-filled memory for the answer).
     */
    @Test
    void aReadOnlyCallCutOffMidAnswerIsAnsweredAgainTheUsualWay() throws Exception {
        transport = Transports.create(config(30_000));
        int length = 1 << 20;
        byte[] body = data(9, length);
        try (ServerSocket listener = new ServerSocket(0, 2, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> script = CompletableFuture.runAsync(() -> {
                try {
                    try (Socket first = listener.accept()) {
                        DataInputStream in = new DataInputStream(first.getInputStream());
                        OutputStream out = first.getOutputStream();
                        out.write(header(readRequestId(in), length, Opcode.READ_BLOCK));
                        out.write(body, 0, 300_000);
                        out.flush();
                    } // closed mid-body
                    try (Socket second = listener.accept()) {
                        second.setTcpNoDelay(true);
                        DataInputStream in = new DataInputStream(second.getInputStream());
                        OutputStream out = second.getOutputStream();
                        byte[] whole = new byte[Frame.HEADER_LENGTH + length];
                        System.arraycopy(header(readRequestId(in), length, Opcode.READ_BLOCK), 0, whole, 0,
                                Frame.HEADER_LENGTH);
                        System.arraycopy(body, 0, whole, Frame.HEADER_LENGTH, length);
                        out.write(whole);
                        out.flush();
                        in.read(); // until the client closes
                    }
                } catch (java.io.IOException e) {
                    throw new CompletionException(e);
                }
            });
            RpcClient c = transport.connect(new InetSocketAddress("127.0.0.1", listener.getLocalPort()));
            Memory m = new Memory();
            Seen seen = c.callInto(Opcode.READ_BLOCK, b -> b.writeLong(1), m,
                    b -> new Seen(b == m.memory, ByteBufUtil.getBytes(b)))
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(seen.bytes()).isEqualTo(body);
            // The first answer was being placed (asked once); the second came the usual way.
            assertThat(m.asked).hasValue(1);
            assertThat(seen.inNamedMemory()).isFalse();
            eventually(() -> m.memory.refCnt() == 1);
            m.memory.release();
            c.close();
            script.join();
        }
    }

    /** Waits up to 10 s for the condition; fails the test when it never holds. */
    private static void eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition still false after 10 s").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    /** Reads one request frame and returns its id. */
    private static long readRequestId(DataInputStream in) throws java.io.IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return ByteBuffer.wrap(frame).getLong(Frame.REQUEST_ID_OFFSET - Frame.LENGTH_FIELD);
    }

    /** The header of an OK answer to FETCH with a body of {@code bodyLength} bytes. */
    private static byte[] header(long requestId, int bodyLength) {
        return header(requestId, bodyLength, FETCH);
    }

    private static byte[] header(long requestId, int bodyLength, int opcode) {
        return ByteBuffer.allocate(Frame.HEADER_LENGTH)
                .putInt(Frame.HEADER_LENGTH - Frame.LENGTH_FIELD + bodyLength).put(Frame.VERSION)
                .put((byte) Frame.FLAG_RESPONSE).putShort((short) opcode).putLong(requestId)
                .putInt(ErrorCode.OK.code()).array();
    }
}
