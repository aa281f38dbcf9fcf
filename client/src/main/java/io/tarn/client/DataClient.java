package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.ShortCircuitProtocol.Grant;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Block reads and writes against datanodes, one pipelined connection per datanode. Thread-safe.
 *
 * <p>With {@code tarn.client.shortcircuit = auto}, a datanode is first asked for short-circuit
 * access (SC_READ, SC_WRITE): it checks the request as it would a TCP one and answers with a grant
 * naming its storage; when that storage is on this host and its files open, the bytes are copied
 * straight between this process and the mapped region files ({@link LocalStorage}) instead of
 * crossing a socket. Every request still goes to the datanode, so a dead datanode, a bad token or
 * a stale generation fail exactly as they do over TCP. A datanode that does not offer it (another
 * host, direct memory, switched off, an older version) or whose files cannot be opened is served
 * over TCP from then on; the reason is logged once.
 */
final class DataClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DataClient.class);
    private static final RpcClient.ResponseDecoder<Void> NO_BODY = b -> null;
    /** Keeps the response frame's memory and hands it to the reader without copying. */
    private static final RpcClient.ResponseDecoder<ByteBuf> RETAIN = ByteBuf::retainedSlice;
    /** Receives block data in one buffer of its own, read from the socket in large reads. */
    static final RpcClient.ResponseTarget RECEIVE = ByteBufAllocator.DEFAULT::directBuffer;

    private final Transport transport;
    private final boolean shortCircuit;
    private final ConcurrentHashMap<String, Boolean> localHosts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Connection> byDatanode = new ConcurrentHashMap<>();
    private final LongAdder shortCircuitBytes = new LongAdder();
    private final LongAdder landedBytes = new LongAdder();
    private final GroupCalls groups;

    /**
     * @param clientId      the client's id (names its writes to replicated blocks across retries)
     * @param timeoutMillis how long calls to a replicated block's group are tried ({@code tarn.rpc.timeout})
     */
    DataClient(Transport transport, ShortCircuitMode mode, long clientId, long timeoutMillis) {
        this.transport = transport;
        this.shortCircuit = mode == ShortCircuitMode.AUTO;
        this.groups = new GroupCalls(m -> connection(m.datanodeId(), m.host(), m.port()).rpc, clientId,
                timeoutMillis);
    }

    /**
     * Writes {@code data} (ownership passes to this call) at {@code offset} inside the block; a
     * replicated block's write goes to its group's leader ({@link GroupCalls}).
     */
    CompletableFuture<Void> write(BlockRef ref, int offset, ByteBuf data) {
        if (ref.replicated()) {
            return groups.write(ref, offset, data);
        }
        Connection c;
        try {
            c = connection(ref);
        } catch (RuntimeException e) {
            data.release(); // ownership passed to this call: no path may drop it
            throw e;
        }
        return write(c, ref, offset, data, grantWrite(c, ref, offset, data.readableBytes()));
    }

    /**
     * Like {@link #write(BlockRef, int, ByteBuf)}, through a grant already asked for this range
     * ({@link #grantWrite}).
     */
    CompletableFuture<Void> write(BlockRef ref, int offset, ByteBuf data,
            CompletableFuture<LocalStorage.WriteRange> granted) {
        if (ref.replicated()) {
            return groups.write(ref, offset, data);
        }
        Connection c;
        try {
            c = connection(ref);
        } catch (RuntimeException e) {
            data.release();
            throw e;
        }
        return write(c, ref, offset, data, granted);
    }

    private CompletableFuture<Void> write(Connection c, BlockRef ref, int offset, ByteBuf data,
            CompletableFuture<LocalStorage.WriteRange> granted) {
        int length = data.readableBytes();
        return granted.handle((range, e) -> {
            if (e != null) {
                data.release();
                return CompletableFuture.<Void>failedFuture(e);
            }
            if (range == null) {
                return tcpWrite(c, ref, offset, data);
            }
            try {
                range.copy(0, data);
                copiedShortCircuit(length);
                return CompletableFuture.<Void>completedFuture(null);
            } catch (TarnException | RuntimeException x) {
                return CompletableFuture.<Void>failedFuture(x);
            } finally {
                data.release();
            }
        }).thenCompose(f -> f);
    }

    /**
     * Asks the datanode for a short-circuit write of a block range ahead of its data, so that the
     * writer can copy its bytes straight into the region (every check of a write is made and the
     * generation advanced, as for WRITE_BLOCK). Completes with the range, or with null when the
     * write goes over TCP: short-circuit off, another host, unavailable, or a replicated block
     * (its writes must go through the group's leader).
     */
    CompletableFuture<LocalStorage.WriteRange> grantWrite(BlockRef ref, int offset, int length) {
        if (ref.replicated()) {
            return CompletableFuture.completedFuture(null);
        }
        return grantWrite(connection(ref), ref, offset, length);
    }

    private CompletableFuture<LocalStorage.WriteRange> grantWrite(Connection c, BlockRef ref, int offset,
            int length) {
        LocalStorage known = c.local;
        if (!shortCircuit || c.remote || known != null && !known.writable()) {
            return CompletableFuture.completedFuture(null);
        }
        return c.rpc.call(Opcode.SC_WRITE, b -> access(b, ref, offset, length), Grant::read)
                .handle((grant, e) -> {
                    if (e != null) {
                        if (olderDatanode(c, e)) {
                            return null;
                        }
                        throw e instanceof CompletionException ce ? ce : new CompletionException(e);
                    }
                    LocalStorage storage = c.storage(grant);
                    try {
                        return storage == null ? null : storage.writeRange(ref, offset, length);
                    } catch (IOException x) {
                        c.giveUp(x.getMessage(), true);
                        return null;
                    }
                });
    }

    /** True when this client copies to and from co-located datanodes when it can. */
    boolean shortCircuits() {
        return shortCircuit;
    }

    /** Counts bytes copied short-circuit. */
    void copiedShortCircuit(long bytes) {
        shortCircuitBytes.add(bytes);
    }

    /** Reads {@code length} bytes at {@code offset} inside the block; the caller releases the result. */
    CompletableFuture<ByteBuf> read(BlockRef ref, int offset, int length) {
        return read(ref, offset, length, RECEIVE);
    }

    /**
     * Like {@link #read(BlockRef, int, int)}, receiving the data over TCP into the memory
     * {@code target} names when the transport places it (the result is then that memory).
     */
    CompletableFuture<ByteBuf> read(BlockRef ref, int offset, int length, RpcClient.ResponseTarget target) {
        if (ref.replicated()) {
            GroupMember near = shortCircuit ? memberOnThisHost(ref.group()) : null;
            if (near == null) {
                // From the group's leader, linearizably, under its lease.
                return groups.read(ref, offset, length);
            }
            // From the replica on this host, short-circuit, once that member caught up with every write
            // the group acknowledged (a read of nothing at it); from the leader if that fails.
            BlockRef replica = ref.atMember(near);
            return groups.readAt(ref, near, 0, 0)
                    .thenCompose(nothing -> {
                        nothing.release();
                        return read(replica, offset, length, target);
                    })
                    .exceptionallyCompose(e -> groups.read(ref, offset, length));
        }
        Connection c = connection(ref);
        if (!shortCircuit || c.remote) {
            return tcpRead(c, ref, offset, length, target);
        }
        return c.rpc.call(Opcode.SC_READ, b -> access(b, ref, offset, length), Grant::read)
                .handle((grant, e) -> {
                    if (e != null) {
                        return olderDatanode(c, e) ? tcpRead(c, ref, offset, length, target)
                                : CompletableFuture.<ByteBuf>failedFuture(e);
                    }
                    LocalStorage storage = c.storage(grant);
                    if (storage == null) {
                        return tcpRead(c, ref, offset, length, target);
                    }
                    if (!(target instanceof Landing landing)) {
                        return copyOut(c, storage, ref, offset, length, target);
                    }
                    CompletableFuture<ByteBuf> result = new CompletableFuture<>();
                    landing.park(new Landing.DeferredCopy() {
                        @Override
                        public void copyInto(RpcClient.ResponseTarget memory) {
                            copyOut(c, storage, ref, offset, length, memory).whenComplete((buf, x) -> {
                                if (x != null) {
                                    result.completeExceptionally(x);
                                } else if (!result.complete(buf)) {
                                    buf.release();
                                }
                            });
                        }

                        @Override
                        public void abandon() {
                            result.cancel(false);
                        }

                        @Override
                        public Landing.Check view() {
                            ByteBuf region;
                            try {
                                region = storage.view(ref, offset, length);
                            } catch (IOException | RuntimeException x) {
                                copyInto(RECEIVE); // as a copy: over TCP when the region cannot be mapped
                                return null;
                            }
                            result.complete(region);
                            return bytes -> {
                                storage.verify(ref);
                                shortCircuitBytes.add(bytes);
                            };
                        }
                    });
                    return result;
                }).thenCompose(f -> f);
    }

    /**
     * A member of {@code group} whose datanode runs on this host and may be read short-circuit (the
     * one believed to lead if it is such a member), or null.
     */
    private GroupMember memberOnThisHost(BlockGroup group) {
        GroupMember first = null;
        int leader = groups.leaderGuess(group);
        for (GroupMember m : group.members()) {
            Connection c = byDatanode.get(m.datanodeId());
            if (c != null && c.remote || !onThisHost(m.host())) {
                continue;
            }
            if (m.memberId() == leader) {
                return m;
            }
            if (first == null) {
                first = m;
            }
        }
        return first;
    }

    /** Whether {@code host} names an address of this machine (cached per host name). */
    private boolean onThisHost(String host) {
        return localHosts.computeIfAbsent(host, h -> {
            try {
                InetAddress a = InetAddress.getByName(h);
                return a.isLoopbackAddress() || a.isAnyLocalAddress() || NetworkInterface.getByInetAddress(a) != null;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Reads the first {@code length} bytes of one member's replica of a replicated block, over TCP. */
    CompletableFuture<ByteBuf> readReplica(BlockRef ref, GroupMember member, int length) {
        Connection c = connection(member.datanodeId(), member.host(), member.port());
        return c.rpc.callInto(Opcode.READ_BLOCK, b -> DatanodeProtocol.writeAccess(b, member.regionId(),
                ref.blockIndex(), ref.generation(), member.token(), ref.tokenStamp(), 0, length), RECEIVE, RETAIN);
    }

    /**
     * Copies a granted block range out of the co-located datanode's region into the memory
     * {@code target} names, or reads it over TCP when the region cannot be mapped here.
     */
    private CompletableFuture<ByteBuf> copyOut(Connection c, LocalStorage storage, BlockRef ref, int offset,
            int length, RpcClient.ResponseTarget target) {
        try {
            ByteBuf copy = storage.read(ref, offset, length, target);
            shortCircuitBytes.add(length);
            return CompletableFuture.completedFuture(copy);
        } catch (TarnException | RuntimeException x) {
            return CompletableFuture.failedFuture(x);
        } catch (IOException x) {
            c.giveUp(x.getMessage(), true);
            return tcpRead(c, ref, offset, length, target);
        }
    }

    /**
     * Counts bytes moved straight between a caller's buffer and the socket or a datanode's region
     * ({@link Landing}, short-circuit writes from direct buffers), with no copy in between.
     */
    void landed(int bytes) {
        landedBytes.add(bytes);
    }

    /** Bytes moved straight between callers' buffers and the socket or a region (see {@link #landed}). */
    long landedBytes() {
        return landedBytes.sum();
    }

    /** Bytes this client copied short-circuit, both directions. */
    long shortCircuitBytes() {
        return shortCircuitBytes.sum();
    }

    private static CompletableFuture<Void> tcpWrite(Connection c, BlockRef ref, int offset, ByteBuf data) {
        int length = data.readableBytes();
        return c.rpc.call(Opcode.WRITE_BLOCK, b -> access(b, ref, offset, length), data, NO_BODY);
    }

    private static CompletableFuture<ByteBuf> tcpRead(Connection c, BlockRef ref, int offset, int length,
            RpcClient.ResponseTarget target) {
        return c.rpc.callInto(Opcode.READ_BLOCK, b -> access(b, ref, offset, length), target, RETAIN);
    }

    private static void access(ByteBuf b, BlockRef ref, int offset, int length) {
        DatanodeProtocol.writeAccess(b, ref.regionId(), ref.blockIndex(), ref.generation(), ref.token(),
                ref.tokenStamp(), offset, length);
    }

    /** True (and TCP from now on) when the datanode does not know the short-circuit requests. */
    private static boolean olderDatanode(Connection c, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof TarnException t && t.code() == ErrorCode.UNKNOWN_OPCODE) {
            c.giveUp("it does not serve short-circuit requests", false);
            return true;
        }
        return false;
    }

    private Connection connection(BlockRef ref) {
        return connection(ref.datanodeId(), ref.host(), ref.port());
    }

    private Connection connection(int datanodeId, String host, int port) {
        Connection c = byDatanode.get(datanodeId);
        if (c != null && c.port == port && c.host.equals(host)) {
            return c;
        }
        return byDatanode.compute(datanodeId, (id, old) -> {
            if (old != null && old.port == port && old.host.equals(host)) {
                return old;
            }
            if (old != null) {
                old.rpc.close(); // the datanode moved (restarted on another address)
            }
            return new Connection(host, port, transport.connect(InetSocketAddress.createUnresolved(host, port)));
        });
    }

    @Override
    public void close() {
        byDatanode.values().forEach(c -> c.rpc.close());
        byDatanode.clear();
    }

    /** One datanode's connection and what is known about reaching its storage short-circuit. */
    private static final class Connection {
        final String host;
        final int port;
        final RpcClient rpc;
        /** The datanode's storage as mapped here, once a grant named one this client could open. */
        volatile LocalStorage local;
        /** True once short-circuit access to this datanode turned out impossible: TCP only. */
        volatile boolean remote;

        Connection(String host, int port, RpcClient rpc) {
            this.host = host;
            this.port = port;
            this.rpc = rpc;
        }

        /** The mapped storage a grant names, or null (and TCP from now on) when it cannot be used here. */
        LocalStorage storage(Grant grant) {
            if (!grant.offered()) {
                giveUp(grant.reason(), false);
                return null;
            }
            if (!LocalStorage.onThisHost(grant)) {
                giveUp("it runs on another host", false);
                return null;
            }
            LocalStorage s = local;
            if (s != null && s.matches(grant)) {
                return s;
            }
            synchronized (this) {
                s = local;
                if (s != null && s.matches(grant)) {
                    return s;
                }
                try {
                    // A restarted datanode may name new storage: the old mapping is dropped.
                    s = LocalStorage.open(grant);
                    local = s;
                    LOG.debug("Datanode {}: short-circuit access to {}", rpc.remote(), s);
                    return s;
                } catch (IOException | RuntimeException e) {
                    giveUp(e.toString(), true);
                    return null;
                }
            }
        }

        /**
         * Uses TCP for this datanode from now on.
         *
         * @param surprising true when the datanode is on this host but its files are not usable (a
         *                   permission or configuration problem worth a warning)
         */
        void giveUp(String why, boolean surprising) {
            if (!remote) {
                remote = true;
                local = null;
                if (surprising) {
                    LOG.warn("Datanode {} is on this host, but short-circuit access to its files failed ({}); "
                            + "using TCP for it", rpc.remote(), why);
                } else {
                    LOG.debug("Datanode {}: no short-circuit access ({}); using TCP", rpc.remote(), why);
                }
            }
        }
    }
}
