package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Block reads and writes against datanodes, one pipelined connection per datanode. Thread-safe.
 */
final class DataClient implements AutoCloseable {
    private static final RpcClient.ResponseDecoder<Void> NO_BODY = b -> null;
    /** Keeps the response frame's memory and hands it to the reader without copying. */
    private static final RpcClient.ResponseDecoder<ByteBuf> RETAIN = ByteBuf::retainedSlice;

    private final Transport transport;
    private final ConcurrentHashMap<Integer, Connection> byDatanode = new ConcurrentHashMap<>();

    DataClient(Transport transport) {
        this.transport = transport;
    }

    /** Writes {@code data} (ownership passes to this call) at {@code offset} inside the block. */
    CompletableFuture<Void> write(BlockRef ref, int offset, ByteBuf data) {
        int length = data.readableBytes();
        RpcClient rpc;
        try {
            rpc = connection(ref);
        } catch (RuntimeException e) {
            data.release(); // ownership passed to this call: no path may drop it
            throw e;
        }
        return rpc.call(Opcode.WRITE_BLOCK, b -> DatanodeProtocol.writeAccess(b, ref.regionId(),
                ref.blockIndex(), ref.generation(), ref.token(), offset, length), data, NO_BODY);
    }

    /** Reads {@code length} bytes at {@code offset} inside the block; the caller releases the result. */
    CompletableFuture<ByteBuf> read(BlockRef ref, int offset, int length) {
        return connection(ref).call(Opcode.READ_BLOCK, b -> DatanodeProtocol.writeAccess(b, ref.regionId(),
                ref.blockIndex(), ref.generation(), ref.token(), offset, length), RETAIN);
    }

    private RpcClient connection(BlockRef ref) {
        Connection c = byDatanode.get(ref.datanodeId());
        if (c != null && c.port == ref.port() && c.host.equals(ref.host())) {
            return c.rpc;
        }
        return byDatanode.compute(ref.datanodeId(), (id, old) -> {
            if (old != null && old.port == ref.port() && old.host.equals(ref.host())) {
                return old;
            }
            if (old != null) {
                old.rpc.close(); // the datanode moved (restarted on another address)
            }
            return new Connection(ref.host(), ref.port(),
                    transport.connect(InetSocketAddress.createUnresolved(ref.host(), ref.port())));
        }).rpc;
    }

    @Override
    public void close() {
        byDatanode.values().forEach(c -> c.rpc.close());
        byDatanode.clear();
    }

    private record Connection(String host, int port, RpcClient rpc) {
    }
}
