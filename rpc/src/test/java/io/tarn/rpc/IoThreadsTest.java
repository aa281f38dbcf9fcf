package io.tarn.rpc;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.TarnConfig;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class IoThreadsTest {
    private static final int WHERE = 1000;

    @Test
    void aServersHandlerAndAClientsCallbacksRunOnIoThreadsAndTheCallerDoesNot() throws Exception {
        CompletableFuture<Boolean> handlerOnIoThread = new CompletableFuture<>();
        RpcHandler handler = request -> {
            handlerOnIoThread.complete(IoThreads.onIoThread());
            ByteBuf out = request.response();
            out.writeByte(1);
            request.send(out);
        };
        assertThat(IoThreads.onIoThread()).as("the test's own thread").isFalse();
        try (Transport transport = Transports.create(TarnConfig.defaults());
             RpcServer server = transport.bind(new InetSocketAddress("127.0.0.1", 0), handler);
             RpcClient client = transport.connect(server.localAddress())) {
            CompletableFuture<Boolean> decoderOnIoThread = client.call(WHERE, b -> { }, b -> IoThreads.onIoThread());
            assertThat(decoderOnIoThread.get(10, TimeUnit.SECONDS)).as("the client's answer decoder").isTrue();
            assertThat(handlerOnIoThread.get(10, TimeUnit.SECONDS)).as("the server's handler").isTrue();
        }
        Thread made = IoThreads.factory("tarn-test").newThread(() -> { });
        assertThat(made.getName()).startsWith("tarn-test-");
        assertThat(made.isDaemon()).isTrue();
    }
}
