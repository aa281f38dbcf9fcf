package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.FileExistsException;
import io.tarn.common.error.RpcTimeoutException;
import io.tarn.common.error.TarnError;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.WaitingCaller;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Calls whose caller waits for them ({@link WaitingCaller}) are made on the caller's thread over
 * the client's second connection ({@link DirectLane}), against a real server on loopback: answers
 * and error answers as on the pipelined connection, timeouts, a busy lane, a lane the server closed
 * while idle, a client closed under a waiting caller, a malformed answer, and the key switching it off.
 */
class DirectLaneTest {
    /** LIST requests wait here until the test answers them; DELETE requests are never answered. */
    private final BlockingQueue<RpcRequest> held = new LinkedBlockingQueue<>();
    private volatile SocketAddress lastCaller;
    private TcpTransport transport;
    private TcpServer server;
    private ServerSocket rawServer;

    @AfterEach
    void stop() throws IOException {
        RpcRequest r;
        while ((r = held.poll()) != null) {
            r.fail(ErrorCode.INTERNAL, "test over");
        }
        if (transport != null) {
            transport.close();
        }
        if (rawServer != null) {
            rawServer.close();
        }
    }

    private TcpClient start(TarnConfig.Builder config) throws IOException {
        transport = new TcpTransport(config.build());
        server = (TcpServer) transport.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), this::serve);
        return (TcpClient) transport.connect(server.localAddress());
    }

    private TcpClient start() throws IOException {
        return start(TarnConfig.builder());
    }

    private void serve(RpcRequest request) {
        String path = Wire.readString(request.body());
        lastCaller = request.remoteAddress();
        switch (request.opcode()) {
            case Opcode.CREATE -> request.fail(ErrorCode.FILE_EXISTS, "file exists: '" + path + "'");
            case Opcode.LIST -> held.add(request);
            case Opcode.DELETE -> { } // never answered
            default -> answer(request, Opcode.name(request.opcode()) + " " + path);
        }
    }

    private static void answer(RpcRequest request, String text) {
        ByteBuf response = request.response();
        Wire.writeString(response, text);
        request.send(response);
    }

    private static CompletableFuture<String> call(TcpClient c, int opcode, String path) {
        return c.call(opcode, b -> Wire.writeString(b, path), Wire::readString);
    }

    /** Makes a call as a caller that waits for it (polling up to 50 µs). */
    private static <T> CompletableFuture<T> waiting(Supplier<CompletableFuture<T>> call) {
        return WaitingCaller.during(TimeUnit.MICROSECONDS.toNanos(50), () -> true, call);
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWaitingCallerIsAnsweredOnItsOwnThreadOverTheLane() throws Exception {
        TcpClient c = start();
        assertThat(get(call(c, Opcode.GET_FILE, "/a"))).as("the first call opens the pipelined connection")
                .isEqualTo("GET_FILE /a");
        CompletableFuture<String> f = waiting(() -> call(c, Opcode.GET_FILE, "/b"));
        assertThat(f).as("answered before the call returned").isCompletedWithValue("GET_FILE /b");
        assertThat(c.directAnswers()).isEqualTo(1);
        assertThat(server.connectionCount()).isEqualTo(2);

        assertThat(get(call(c, Opcode.GET_FILE, "/c"))).isEqualTo("GET_FILE /c");
        assertThat(c.directAnswers()).as("a caller that does not wait takes the pipelined connection").isEqualTo(1);
        assertThat(waiting(() -> call(c, Opcode.MKDIRS, "/d"))).isCompletedWithValue("MKDIRS /d");
        assertThat(c.directAnswers()).isEqualTo(2);
        assertThat(server.connectionCount()).as("the lane is kept between calls").isEqualTo(2);
    }

    @Test
    void callsWithoutAConnectionOrOfTheDataProtocolAreNotMadeOnTheLane() throws Exception {
        TcpClient c = start();
        assertThat(get(waiting(() -> call(c, Opcode.GET_FILE, "/a")))).isEqualTo("GET_FILE /a");
        assertThat(c.directAnswers()).as("the pipelined connection was not open yet").isZero();
        assertThat(get(waiting(() -> call(c, Opcode.READ_BLOCK, "/b")))).isEqualTo("READ_BLOCK /b");
        assertThat(c.directAnswers()).as("data calls always take the pipelined connection").isZero();
        assertThat(server.connectionCount()).isEqualTo(1);
    }

    @Test
    void anErrorAnswerIsTheTypedExceptionAndTheLaneServesOn() throws Exception {
        TcpClient c = start();
        get(call(c, Opcode.GET_FILE, "/"));
        CompletableFuture<String> f = waiting(() -> call(c, Opcode.CREATE, "/exists"));
        assertThat(f).isCompletedExceptionally();
        Throwable t = catchThrowable(f::join).getCause();
        assertThat(t).isInstanceOf(FileExistsException.class).hasMessage("file exists: '/exists'");
        assertThat(waiting(() -> call(c, Opcode.GET_FILE, "/next"))).isCompletedWithValue("GET_FILE /next");
        assertThat(c.directAnswers()).isEqualTo(2);
        assertThat(server.connectionCount()).isEqualTo(2);
    }

    @Test
    void aCallWithoutAnswerTimesOutAndTheNextOneOpensANewLane() throws Exception {
        TcpClient c = start(TarnConfig.builder().set(TarnKeys.RPC_TIMEOUT, 300L));
        get(call(c, Opcode.GET_FILE, "/"));
        long start = System.nanoTime();
        CompletableFuture<String> f = waiting(() -> call(c, Opcode.DELETE, "/never"));
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        Throwable t = catchThrowable(f::join).getCause();
        assertThat(t).isInstanceOf(RpcTimeoutException.class).hasMessageContaining("DELETE")
                .hasMessageContaining("tarn.rpc.timeout");
        assertThat(waiting(() -> call(c, Opcode.GET_FILE, "/after"))).isCompletedWithValue("GET_FILE /after");
        assertThat(c.directAnswers()).isEqualTo(1);
    }

    /** A LIST the server holds, made on the lane by a waiting caller on another thread, and that caller's call. */
    private record Held(RpcRequest request, CompletableFuture<CompletableFuture<String>> caller) {
    }

    private Held listHeldOnTheLane(TcpClient c, long spinNanos) throws Exception {
        get(call(c, Opcode.GET_FILE, "/"));
        CompletableFuture<CompletableFuture<String>> caller = CompletableFuture.supplyAsync(
                () -> WaitingCaller.during(spinNanos, () -> true, () -> call(c, Opcode.LIST, "/held")));
        RpcRequest request = held.poll(10, TimeUnit.SECONDS);
        assertThat(request).as("the LIST reached the server").isNotNull();
        return new Held(request, caller);
    }

    @Test
    void whileTheLaneIsBusyAnotherWaitingCallerTakesThePipelinedConnection() throws Exception {
        TcpClient c = start();
        Held list = listHeldOnTheLane(c, TimeUnit.MICROSECONDS.toNanos(50));
        assertThat(get(waiting(() -> call(c, Opcode.GET_FILE, "/meanwhile")))).isEqualTo("GET_FILE /meanwhile");
        assertThat(c.directAnswers()).as("the lane was busy").isZero();
        answer(list.request(), "listed");
        assertThat(get(get(list.caller()))).isEqualTo("listed");
        assertThat(c.directAnswers()).isEqualTo(1);
    }

    @Test
    void aLaneTheServerClosedWhileIdleIsOpenedAfreshEvenForACallThatChangesSomething() throws Exception {
        TcpClient c = start();
        get(call(c, Opcode.GET_FILE, "/"));
        assertThat(waiting(() -> call(c, Opcode.GET_FILE, "/one"))).isCompletedWithValue("GET_FILE /one");
        SocketAddress lane = lastCaller;
        Channel serverSide = server.connections().stream().filter(ch -> lane.equals(ch.remoteAddress()))
                .findFirst().orElseThrow();
        serverSide.close().syncUninterruptibly();
        assertThat(waiting(() -> call(c, Opcode.RENAME, "/two"))).isCompletedWithValue("RENAME /two");
        assertThat(lastCaller).as("answered on a new lane").isNotEqualTo(lane);
        assertThat(c.directAnswers()).isEqualTo(2);
    }

    @Test
    void closingTheClientFailsACallerWaitingOnTheLane() throws Exception {
        TcpClient c = start();
        Held list = listHeldOnTheLane(c, 0);
        c.close();
        Throwable t = catchThrowable(() -> get(get(list.caller())));
        assertThat(t).isInstanceOf(ExecutionException.class);
        assertThat(t.getCause()).isInstanceOfSatisfying(TarnError.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_LOST)).hasMessageContaining("closed");
    }

    @Test
    void theKeyOffKeepsEveryCallOnThePipelinedConnection() throws Exception {
        TcpClient c = start(TarnConfig.builder().set(TarnKeys.CLIENT_WAIT_DIRECT, false));
        get(call(c, Opcode.GET_FILE, "/"));
        assertThat(get(waiting(() -> call(c, Opcode.GET_FILE, "/a")))).isEqualTo("GET_FILE /a");
        assertThat(c.directAnswers()).isZero();
        assertThat(server.connectionCount()).isEqualTo(1);
    }

    /**
     * A plain socket server that answers every request with its opcode, except RENAME, which it
     * answers with another request id: the lane closes and fails the call, the next call opens a new one.
     */
    @Test
    void aMalformedAnswerFailsTheCallAndClosesTheLane() throws Exception {
        rawServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accepting = new Thread(() -> {
            while (!rawServer.isClosed()) {
                try {
                    Socket s = rawServer.accept();
                    Thread serving = new Thread(() -> serveRaw(s), "raw-connection");
                    serving.setDaemon(true);
                    serving.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }, "raw-server");
        accepting.setDaemon(true);
        accepting.start();
        transport = new TcpTransport(TarnConfig.builder().set(TarnKeys.RPC_TIMEOUT, 5_000L).build());
        TcpClient c = (TcpClient) transport.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                rawServer.getLocalPort()));
        assertThat(get(call(c, Opcode.GET_FILE, "/"))).isEqualTo("GET_FILE");
        CompletableFuture<String> f = waiting(() -> call(c, Opcode.RENAME, "/x"));
        assertThat(catchThrowable(f::join).getCause()).isInstanceOfSatisfying(TarnError.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_LOST)).hasMessageContaining("malformed");
        assertThat(waiting(() -> call(c, Opcode.GET_FILE, "/y"))).isCompletedWithValue("GET_FILE");
        assertThat(c.directAnswers()).isEqualTo(1);
    }

    private static void serveRaw(Socket s) {
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (true) {
                ByteBuf request = RawFrames.read(in);
                int opcode = Frame.opcode(request);
                long id = Frame.requestId(request) + (opcode == Opcode.RENAME ? 1 : 0);
                request.release();
                RawFrames.answer(out, opcode, id, Opcode.name(opcode));
            }
        } catch (IOException done) {
            // the client or the test closed the connection
        }
    }
}
