package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Socket send buffers: {@code tarn.rpc.send.buffer.local} for peers on this host,
 * {@code tarn.rpc.send.buffer} for the others, over real loopback connections.
 */
class SendBufferTest {
    private static final long LOCAL = 96 * 1024;
    private static final long REMOTE = 200 * 1024;

    private final List<TcpTransport> transports = new ArrayList<>();

    @AfterEach
    void stop() {
        transports.forEach(TcpTransport::close);
    }

    private TcpTransport transport(long local, long remote) {
        TcpTransport t = new TcpTransport(TarnConfig.builder().set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.RPC_IO_THREADS, 2).set(TarnKeys.RPC_TIMEOUT, 20_000L)
                .set(TarnKeys.RPC_SEND_BUFFER_LOCAL, local).set(TarnKeys.RPC_SEND_BUFFER, remote).build());
        transports.add(t);
        return t;
    }

    @Test
    void peersOnThisHostGetTheLocalSizeAndOthersTheRemoteOne() throws Exception {
        TcpTransport t = transport(LOCAL, REMOTE);
        assertThat(t.sendBufferFor(InetAddress.getByName("127.0.0.1"))).isEqualTo(LOCAL);
        assertThat(t.sendBufferFor(InetAddress.getByName("127.3.4.5"))).as("all of 127/8 is loopback").isEqualTo(LOCAL);
        assertThat(t.sendBufferFor(InetAddress.getByName("::1"))).isEqualTo(LOCAL);
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress own : Collections.list(nic.getInetAddresses())) {
                assertThat(t.sendBufferFor(own)).as("%s of %s", own, nic.getName()).isEqualTo(LOCAL);
            }
        }
        // TEST-NET-1 (RFC 5737) is for documentation and never an address of a host.
        assertThat(t.sendBufferFor(InetAddress.getByName("192.0.2.1"))).isEqualTo(REMOTE);
        assertThat(t.sendBufferFor(null)).as("a peer of unknown address counts as remote").isEqualTo(REMOTE);
        assertThat(transport(0, 0).sendBufferFor(InetAddress.getByName("127.0.0.1")))
                .as("0: the kernel's autotuning").isZero();
    }

    @Test
    void bothEndsOfALoopbackConnectionUseTheLocalSize() throws Exception {
        TcpTransport serverSide = transport(LOCAL, REMOTE);
        TcpServer server = (TcpServer) serverSide.bind(new InetSocketAddress("127.0.0.1", 0), TcpTransportTest.HANDLER);
        TcpClient client = (TcpClient) transport(LOCAL, REMOTE).connect(server.localAddress());
        assertThat(client.call(TcpTransportTest.ECHO, b -> b.writeLong(21), ByteBuf::readLong).join()).isEqualTo(42L);

        Channel clientEnd = client.eventLoop().submit(client::channel).get(5, TimeUnit.SECONDS);
        assertThat(server.connections()).hasSize(1);
        Channel serverEnd = server.connections().get(0);
        for (Channel end : List.of(clientEnd, serverEnd)) {
            int reported = ((io.netty.channel.socket.SocketChannel) end).config().getSendBufferSize();
            // Linux reports twice the size set (the kernel's bookkeeping overhead); others report it as set.
            assertThat((long) reported).as("SO_SNDBUF of %s", end).isBetween(LOCAL, 2 * LOCAL);
        }
    }

    @Test
    void largeRequestsAndAnswersCrossTinySendBuffersIntact() throws Exception {
        long tiny = 64 * 1024; // the least the keys take, far below one frame: every frame takes many partial writes
        RpcServer server = transport(tiny, tiny).bind(new InetSocketAddress("127.0.0.1", 0), TcpTransportTest.HANDLER);
        RpcClient client = transport(tiny, tiny).connect(server.localAddress());
        int calls = 8;
        int size = 3 << 20;
        byte[] sent = new byte[size];
        new java.util.Random(5).nextBytes(sent);
        int sentSum = 0;
        for (byte b : sent) {
            sentSum += b;
        }
        List<CompletableFuture<ByteBuf>> answers = new ArrayList<>();
        List<Integer> sums = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < calls; i++) {
            int answerBytes = size + i;
            answers.add(client.call(TcpTransportTest.PAYLOAD, b -> b.writeInt(answerBytes),
                    Unpooled.wrappedBuffer(sent), body -> {
                        sums.add(body.readInt());
                        return body.retainedSlice();
                    }));
        }
        for (int i = 0; i < calls; i++) {
            ByteBuf answer = answers.get(i).get(30, TimeUnit.SECONDS);
            try {
                assertThat(answer.readableBytes()).isEqualTo(size + i);
                for (int k = 0; k < answer.readableBytes(); k++) {
                    if (answer.getByte(answer.readerIndex() + k) != (byte) k) {
                        throw new AssertionError("answer " + i + " differs at byte " + k);
                    }
                }
            } finally {
                answer.release();
            }
        }
        assertThat(sums).hasSize(calls).containsOnly(sentSum);
    }
}
