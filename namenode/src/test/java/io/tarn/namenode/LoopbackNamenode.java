package io.tarn.namenode;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A namenode on an ephemeral loopback port (TCP, one I/O thread) and an RPC client of a transport of
 * its own connected to it, for tests that drive a namenode over the wire.
 */
final class LoopbackNamenode implements AutoCloseable {
    final Namenode namenode;
    final Transport transport;
    final RpcClient rpc;

    private LoopbackNamenode(Namenode namenode, Transport transport) {
        this.namenode = namenode;
        this.transport = transport;
        this.rpc = transport.connect(namenode.address());
    }

    /** Starts one with blocks of {@code blockSize} bytes. */
    static LoopbackNamenode start(int blockSize) throws IOException {
        TarnConfig config = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.NAMENODE_ADDRESS, "127.0.0.1:0")
                .set(TarnKeys.BLOCK_SIZE, (long) blockSize)
                .set(TarnKeys.RPC_IO_THREADS, 1)
                .set(TarnKeys.RPC_TIMEOUT, 10_000L)
                .build();
        Namenode namenode = Namenode.start(config);
        try {
            return new LoopbackNamenode(namenode, Transports.create(config));
        } catch (RuntimeException e) {
            namenode.close();
            throw e;
        }
    }

    /** The answer within 20 s, or the exception it failed with (not wrapped). */
    static <T> T get(CompletableFuture<T> f) throws Exception {
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    /** Closes the client's transport, then the namenode. */
    @Override
    public void close() {
        transport.close();
        namenode.close();
    }
}
