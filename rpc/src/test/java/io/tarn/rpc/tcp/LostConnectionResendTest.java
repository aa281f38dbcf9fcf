package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A connection that dies after the request went out and before its answer (what a client sees
 * when the server restarted): a read-only call is sent once more on a new connection and succeeds;
 * any other call fails with CONNECTION_LOST, since it may have been carried out. The server is a
 * plain socket that drops the first connection after reading one request, so the loss is certain.
 */
class LostConnectionResendTest {
    private ServerSocket server;
    private Thread serving;
    private final List<Integer> opcodesSeen = new ArrayList<>();
    private Transport transport;

    @BeforeEach
    void start() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        serving = new Thread(this::serve, "fake-server");
        serving.setDaemon(true);
        serving.start();
        transport = Transports.create(TarnConfig.builder().set(TarnKeys.TRANSPORT,
                io.tarn.common.config.TransportKind.TCP).set(TarnKeys.RPC_TIMEOUT, 5_000L).build());
    }

    @AfterEach
    void stop() throws Exception {
        transport.close();
        server.close();
        serving.join(5_000);
    }

    /** First connection: read one request, then hang up. Later ones: answer every request with its opcode echoed. */
    private void serve() {
        boolean first = true;
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                while (true) {
                    ByteBuf request = RawFrames.read(in);
                    int opcode = Frame.opcode(request);
                    long id = Frame.requestId(request);
                    request.release();
                    synchronized (opcodesSeen) {
                        opcodesSeen.add(opcode);
                    }
                    if (first) {
                        first = false;
                        break; // drop the connection without answering
                    }
                    RawFrames.answer(out, opcode, id, "answer to " + Opcode.name(opcode));
                }
            } catch (IOException closedOrDone) {
                // next connection, or the test is over
            }
        }
    }

    private RpcClient client() {
        return transport.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
    }

    private static CompletableFuture<String> call(RpcClient c, int opcode) {
        return c.call(opcode, b -> Wire.writeString(b, "/x"), Wire::readString);
    }

    @Test
    void aReadOnlyCallIsSentOnceMoreOnANewConnection() throws Exception {
        RpcClient c = client();
        assertThat(call(c, Opcode.GET_FILE).get(5, TimeUnit.SECONDS)).isEqualTo("answer to GET_FILE");
        synchronized (opcodesSeen) {
            assertThat(opcodesSeen).as("sent, lost, sent again").containsExactly(Opcode.GET_FILE, Opcode.GET_FILE);
        }
        assertThat(call(c, Opcode.LIST).get(5, TimeUnit.SECONDS)).as("the new connection serves on")
                .isEqualTo("answer to LIST");
    }

    @Test
    void aCallThatChangesSomethingFailsWithConnectionLost() throws Exception {
        RpcClient c = client();
        Throwable t = catchThrowable(() -> call(c, Opcode.CREATE).get(5, TimeUnit.SECONDS));
        assertThat(t).isInstanceOf(ExecutionException.class);
        assertThat(t.getCause()).isInstanceOfSatisfying(TarnError.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_LOST));
        synchronized (opcodesSeen) {
            assertThat(opcodesSeen).as("not sent again").containsExactly(Opcode.CREATE);
        }
        assertThat(call(c, Opcode.CREATE).get(5, TimeUnit.SECONDS)).as("the next call connects again")
                .isEqualTo("answer to CREATE");
    }
}
