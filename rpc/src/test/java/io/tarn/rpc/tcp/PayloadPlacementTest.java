package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Frame;
import io.tarn.rpc.PayloadPlacement;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Payloads received straight into a handler's memory ({@link PayloadPlacement}), over real
 * loopback sockets: the bytes land where the handler said, the frames around them are untouched,
 * a refused or invalidated placement loses nothing, and a connection dying mid-payload frees the
 * target.
 */
class PayloadPlacementTest {
    /** head: slot[i32] mode[i32]; payload follows. Answers placedBytes[i32] bodyBytes[i32] crc[i64]. */
    static final int STORE = 2000;
    static final int ECHO = 2001;
    static final int PLACE = 0;
    static final int DECLINE = 1;
    static final int INVALID_AT_ONCE = 2;

    /** Per slot: the memory a STORE request's payload is placed into. */
    final Map<Integer, ByteBuf> slots = new ConcurrentHashMap<>();
    final AtomicInteger handled = new AtomicInteger();
    Transport transport;
    RpcServer server;

    final class Handler implements RpcHandler, PayloadPlacement {
        @Override
        public int headLength(int opcode) {
            return opcode == STORE ? 8 : -1;
        }

        @Override
        public Target place(int opcode, ByteBuf head, int payloadLength) {
            int slot = head.getInt(head.readerIndex());
            int mode = head.getInt(head.readerIndex() + 4);
            if (mode == DECLINE) {
                return null;
            }
            ByteBuf memory = Unpooled.directBuffer(payloadLength);
            slots.put(slot, memory);
            ByteBuf target = memory.retainedSlice(0, payloadLength).clear();
            return new Target() {
                @Override
                public ByteBuf memory() {
                    return target;
                }

                @Override
                public boolean stillValid() {
                    return mode != INVALID_AT_ONCE;
                }
            };
        }

        @Override
        public void handle(RpcRequest r) {
            handled.incrementAndGet();
            if (r.opcode() == ECHO) {
                ByteBuf out = r.response();
                out.writeLong(r.body().readLong() * 2);
                r.send(out);
                return;
            }
            int slot = r.body().readInt();
            r.body().readInt();
            int placed = r.placedBytes();
            ByteBuf data = placed >= 0 ? slots.get(slot).slice(0, placed) : r.body();
            ByteBuf out = r.response();
            out.writeInt(placed).writeInt(r.body().readableBytes()).writeLong(crc(data));
            r.send(out);
        }
    }

    record Answer(int placed, int bodyBytes, long crc) {
    }

    @BeforeEach
    void start() throws Exception {
        transport = Transports.create(config());
        server = transport.bind(new InetSocketAddress("127.0.0.1", 0), new Handler());
    }

    private static TarnConfig config() {
        return TarnConfig.builder().set(TarnKeys.TRANSPORT, TransportKind.TCP).set(TarnKeys.RPC_IO_THREADS, 2)
                .build();
    }

    @AfterEach
    void stop() {
        transport.close();
        slots.values().forEach(ByteBuf::release);
    }

    private static long crc(ByteBuf b) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(b.nioBuffer());
        return crc.getValue();
    }

    private static CompletableFuture<Answer> store(RpcClient c, int slot, int mode, byte[] data) {
        return c.call(STORE, b -> b.writeInt(slot).writeInt(mode), Unpooled.wrappedBuffer(data),
                r -> new Answer(r.readInt(), r.readInt(), r.readLong()));
    }

    private static byte[] random(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    /** Waits up to 10 s for the condition; fails the test when it never holds. */
    private static void eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition still false after 10 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static long crc(byte[] b) {
        return crc(Unpooled.wrappedBuffer(b));
    }

    @Test
    void largePayloadsLandInTheirMemoryAndTheFramesAroundThemArriveIntact() {
        RpcClient c = transport.connect(server.localAddress());
        Random random = new Random(7);
        int[] sizes = {64 * 1024, 64 * 1024 + 1, 100_000, 1 << 20, (3 << 20) + 7, 1 << 20};
        List<byte[]> sent = new ArrayList<>();
        List<CompletableFuture<Answer>> stores = new ArrayList<>();
        List<CompletableFuture<Long>> echoes = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            for (int s = 0; s < sizes.length; s++) {
                int slot = round * sizes.length + s;
                byte[] data = random(random, sizes[s]);
                sent.add(data);
                stores.add(store(c, slot, PLACE, data));
                long v = slot;
                echoes.add(c.call(ECHO, b -> b.writeLong(v), ByteBuf::readLong));
            }
        }
        for (int i = 0; i < stores.size(); i++) {
            Answer a = stores.get(i).join();
            byte[] data = sent.get(i);
            // The handler sees only the head; the payload is in the slot's memory, byte for byte.
            assertThat(a.bodyBytes()).isZero();
            assertThat(a.placed()).isEqualTo(data.length);
            assertThat(a.crc()).isEqualTo(crc(data));
            assertThat(crc(slots.get(i).slice(0, data.length))).isEqualTo(crc(data));
            assertThat(echoes.get(i).join()).isEqualTo(2L * i);
        }
    }

    @Test
    void smallAndDeclinedPayloadsArriveInTheBody() {
        RpcClient c = transport.connect(server.localAddress());
        Random random = new Random(8);
        byte[] small = random(random, PayloadPlacement.MIN_PAYLOAD - 1);
        byte[] declined = random(random, 2 << 20);
        Answer a = store(c, 1, PLACE, small).join();
        Answer b = store(c, 2, DECLINE, declined).join();
        assertThat(a).isEqualTo(new Answer(-1, small.length, crc(small)));
        assertThat(b).isEqualTo(new Answer(-1, declined.length, crc(declined)));
        assertThat(slots).isEmpty();
    }

    @Test
    void aTargetTurnedInvalidGetsNoMoreBytesAndTheConnectionGoesOn() {
        RpcClient c = transport.connect(server.localAddress());
        byte[] data = random(new Random(9), 4 << 20);
        Answer a = store(c, 5, INVALID_AT_ONCE, data).join();
        // Only the bytes that came with the head were placed; the rest was read and dropped.
        assertThat(a.bodyBytes()).isZero();
        assertThat(a.placed()).isBetween(0, data.length - 1);
        ByteBuf memory = slots.get(5);
        assertThat(ByteBufUtil.getBytes(memory, 0, a.placed())).isEqualTo(java.util.Arrays.copyOf(data, a.placed()));
        assertThat(memory.getByte(a.placed())).isZero();
        assertThat(c.call(ECHO, b -> b.writeLong(21), ByteBuf::readLong).join()).isEqualTo(42L);
        Answer next = store(c, 6, PLACE, data).join();
        assertThat(next.placed()).isEqualTo(data.length);
        assertThat(crc(slots.get(6).slice(0, data.length))).isEqualTo(crc(data));
    }

    @Test
    void aRequestWhoseHeadArrivesInPiecesIsPlacedAndTheFramesAfterItStayInStep() throws Exception {
        byte[] data = random(new Random(10), 300_000);
        byte[] first = frame(ECHO, 1, ByteBuffer.allocate(8).putLong(5).array());
        byte[] store = frame(STORE, 2, ByteBuffer.allocate(8 + data.length).putInt(11).putInt(PLACE).put(data).array());
        byte[] last = frame(ECHO, 3, ByteBuffer.allocate(8).putLong(6).array());
        try (Socket s = new Socket("127.0.0.1", server.localAddress().getPort())) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            // A whole frame with the store's first 10 bytes; then the rest of its header and part of
            // its head; then the rest and one more frame. The pauses make them separate reads.
            out.write(concat(first, java.util.Arrays.copyOfRange(store, 0, 10)));
            out.flush();
            Thread.sleep(100);
            out.write(java.util.Arrays.copyOfRange(store, 10, Frame.HEADER_LENGTH + 4));
            out.flush();
            Thread.sleep(100);
            out.write(concat(java.util.Arrays.copyOfRange(store, Frame.HEADER_LENGTH + 4, store.length), last));
            out.flush();
            java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
            assertThat(readResponse(in, 1).getLong()).isEqualTo(10L);
            ByteBuffer stored = readResponse(in, 2);
            assertThat(new Answer(stored.getInt(), stored.getInt(), stored.getLong()))
                    .isEqualTo(new Answer(data.length, 0, crc(data)));
            assertThat(readResponse(in, 3).getLong()).isEqualTo(12L);
        }
    }

    /** A request frame: header, then the body. */
    private static byte[] frame(int opcode, long requestId, byte[] body) {
        return ByteBuffer.allocate(Frame.HEADER_LENGTH + body.length)
                .putInt(Frame.HEADER_LENGTH - Frame.LENGTH_FIELD + body.length).put(Frame.VERSION).put((byte) 0)
                .putShort((short) opcode).putLong(requestId).putInt(ErrorCode.OK.code()).put(body).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Reads one response frame, checks its request id and status, and returns its body. */
    private static ByteBuffer readResponse(java.io.DataInputStream in, long requestId) throws java.io.IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        ByteBuffer b = ByteBuffer.wrap(frame);
        assertThat(b.getLong(Frame.REQUEST_ID_OFFSET - Frame.LENGTH_FIELD)).isEqualTo(requestId);
        assertThat(b.getInt(Frame.STATUS_OFFSET - Frame.LENGTH_FIELD)).isEqualTo(ErrorCode.OK.code());
        return b.position(Frame.HEADER_LENGTH - Frame.LENGTH_FIELD).slice();
    }

    @Test
    void aConnectionDyingMidPayloadFreesItsTargetAndHandlesNothing() throws Exception {
        int length = 1 << 20;
        ByteBuffer frame = ByteBuffer.allocate(Frame.HEADER_LENGTH + 8 + 200_000);
        frame.putInt(Frame.HEADER_LENGTH - Frame.LENGTH_FIELD + 8 + length).put(Frame.VERSION).put((byte) 0)
                .putShort((short) STORE).putLong(1).putInt(ErrorCode.OK.code()).putInt(9).putInt(PLACE);
        try (Socket s = new Socket("127.0.0.1", server.localAddress().getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(frame.array());
            out.flush();
            eventually(() -> slots.containsKey(9) && slots.get(9).refCnt() == 2);
        }
        // The server saw the end of the stream mid-payload: the target is released, nothing answered.
        eventually(() -> slots.get(9).refCnt() == 1);
        assertThat(handled).hasValue(0);
        RpcClient c = transport.connect(server.localAddress());
        assertThat(c.call(ECHO, b -> b.writeLong(4), ByteBuf::readLong).join()).isEqualTo(8L);
    }
}
