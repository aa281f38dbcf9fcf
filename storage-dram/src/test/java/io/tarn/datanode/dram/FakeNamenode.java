package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatResponse;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.BlockKeys;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The namenode's side of registration, heartbeats and deregistration, over real sockets: enough of a
 * protocol peer to drive a datanode through registering, heartbeating, being forgotten,
 * re-registering and saying goodbye. Datanode ids are kept per storage id, as the real namenode does.
 */
final class FakeNamenode implements RpcHandler, AutoCloseable {
    private final Transport transport;
    private final int blockSize;
    private final Map<UUID, Integer> ids = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    private final List<RegisterRequest> registrations = new CopyOnWriteArrayList<>();
    private final AtomicInteger heartbeats = new AtomicInteger();
    private final List<DeregisterRequest> deregistrations = new CopyOnWriteArrayList<>();
    private final List<RpcRequest> unanswered = new CopyOnWriteArrayList<>();
    private volatile boolean ignoreDeregistrations;
    private volatile Runnable onDeregistration = () -> { };
    private volatile BlockTokens tokens = BlockTokens.random();
    private volatile boolean resetGenerations;
    private volatile RpcServer server;

    FakeNamenode(Transport transport, int blockSize) {
        this.transport = transport;
        this.blockSize = blockSize;
    }

    /** Listens on {@code address}; port 0 picks one. */
    FakeNamenode start(InetSocketAddress address) throws IOException {
        server = transport.bind(address, this);
        return this;
    }

    /** Stops listening (and drops connections), as a crashed namenode would. */
    void stop() {
        server.close();
    }

    String address() {
        return "127.0.0.1:" + server.localAddress().getPort();
    }

    int port() {
        return server.localAddress().getPort();
    }

    /** Forgets every datanode and picks a new token key: a namenode restarted without its state. */
    void forgetDatanodes() {
        tokens = BlockTokens.random();
        ids.clear();
    }

    void answerResetGenerations(boolean reset) {
        resetGenerations = reset;
    }

    /** Records deregistrations but never answers them, like a namenode that hangs. */
    void ignoreDeregistrations() {
        ignoreDeregistrations = true;
    }

    /** Runs {@code action} on the I/O thread as each deregistration arrives, before it is answered. */
    void onDeregistration(Runnable action) {
        onDeregistration = action;
    }

    /** Deregistrations received, answered or not. */
    List<DeregisterRequest> deregistrations() {
        return deregistrations;
    }

    BlockTokens tokens() {
        return tokens;
    }

    List<RegisterRequest> registrations() {
        return registrations;
    }

    RegisterRequest lastRegistration() {
        return registrations.get(registrations.size() - 1);
    }

    int heartbeats() {
        return heartbeats.get();
    }

    @Override
    public void handle(RpcRequest request) {
        switch (request.opcode()) {
            case Opcode.REGISTER_DATANODE: {
                RegisterRequest r = RegisterRequest.decode(request.body());
                registrations.add(r);
                int id = ids.computeIfAbsent(new UUID(r.storageIdHigh(), r.storageIdLow()),
                        k -> nextId.getAndIncrement());
                BlockTokens t = tokens;
                ByteBuf response = request.response();
                new RegisterResponse(id, blockSize, BlockKeys.of(t), resetGenerations).encode(response);
                request.send(response);
                break;
            }
            case Opcode.HEARTBEAT: {
                HeartbeatRequest h = HeartbeatRequest.decode(request.body());
                Integer known = ids.get(new UUID(h.storageIdHigh(), h.storageIdLow()));
                if (known == null || known != h.datanodeId()) {
                    request.fail(ErrorCode.UNKNOWN_DATANODE, "datanode " + h.datanodeId() + " is not registered");
                } else {
                    heartbeats.incrementAndGet();
                    ByteBuf response = request.response();
                    new HeartbeatResponse(List.of()).encode(response); // no block groups here
                    request.send(response);
                }
                break;
            }
            case Opcode.DEREGISTER_DATANODE: {
                DeregisterRequest d = DeregisterRequest.decode(request.body());
                deregistrations.add(d);
                onDeregistration.run();
                Integer known = ids.get(new UUID(d.storageIdHigh(), d.storageIdLow()));
                if (ignoreDeregistrations) {
                    unanswered.add(request);
                } else if (known == null || known != d.datanodeId()) {
                    request.fail(ErrorCode.UNKNOWN_DATANODE, "datanode " + d.datanodeId() + " is not registered");
                } else {
                    request.send(request.response());
                }
                break;
            }
            default:
                request.fail(ErrorCode.UNKNOWN_OPCODE, Opcode.name(request.opcode()));
        }
    }

    @Override
    public void close() {
        // Answered late so the transport releases their bodies.
        for (RpcRequest r : unanswered) {
            r.fail(ErrorCode.TIMEOUT, "the fake namenode ignored this request");
        }
        if (server != null) {
            server.close();
        }
    }
}
