package io.tarn.replication.host;

import io.tarn.common.protocol.Opcode;
import io.tarn.replication.Message;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Sends the replication messages of every group this datanode hosts to the other members'
 * datanodes ({@link Opcode#REPLICA_MESSAGE}), over two pipelined connections per peer datanode
 * shared by all groups: one for the messages that carry entries or images, one for the rest
 * (heartbeats, votes, acknowledgments, read-index requests). A heartbeat thus never waits behind
 * megabytes of entries on their way to a slow follower, which would cost the group its leader
 * whenever the queue took longer to drain than an election timeout; the core does not rely on the
 * order of messages across the two. Sending never blocks the caller (a group's loop, marked as an
 * I/O thread); a message that cannot be delivered is dropped, counted and reported to the sender.
 */
public final class PeerMessenger implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerMessenger.class);

    private final Transport transport;
    private final ReplicationCodec codec;
    private final ImageTransfers transfers;
    /** Per peer datanode: the connection for entries and images. */
    private final ConcurrentHashMap<InetSocketAddress, RpcClient> bulk = new ConcurrentHashMap<>();
    /** Per peer datanode: the connection for everything else. */
    private final ConcurrentHashMap<InetSocketAddress, RpcClient> control = new ConcurrentHashMap<>();
    private final LongAdder sent = new LongAdder();
    private final LongAdder dropped = new LongAdder();

    /**
     * @param transport the datanode's transport
     * @param codec     encodes messages (and checkpoint images)
     */
    public PeerMessenger(Transport transport, ReplicationCodec codec) {
        this.transport = transport;
        this.codec = codec;
        this.transfers = new ImageTransfers(codec);
    }

    /**
     * Sends {@code message} of group {@code members.groupId()} to its addressee's datanode; an
     * {@code InstallCheckpoint} streams its image in chunks read on {@code loop}, the group's loop
     * ({@link ImageTransfers}). A message that does not reach the other datanode's group (no
     * address, connection refused or lost, no answer within {@code tarn.rpc.timeout}, the group not
     * hosted there yet) is handed to {@code undelivered}, on a transport thread or this one; a
     * message that did reach it was handed to that group's replica, which is what makes the
     * replication links reliable ({@link io.tarn.replication.ReplicationConfig#reliableLinks()}).
     */
    public void send(GroupMembers members, Message message, Executor loop, Consumer<Message> undelivered) {
        InetSocketAddress to = members.address(message.to());
        if (to == null) {
            dropped.increment();
            undelivered.accept(message);
            return;
        }
        RpcClient peer = (message.carriesData() ? bulk : control).computeIfAbsent(to, transport::connect);
        sent.increment();
        if (message instanceof Message.InstallCheckpoint install) {
            transfers.send(members, install, peer, loop);
            return;
        }
        peer.call(Opcode.REPLICA_MESSAGE, body -> {
            ReplicationCodec.writeHeader(body, members.groupId(), members.version());
            codec.encode(body, message);
        }, answer -> Boolean.TRUE).whenComplete((ok, failure) -> {
            if (failure != null) {
                dropped.increment();
                undelivered.accept(message);
                LOG.debug("group {}: message to member {} at {} dropped: {}", members.groupId(), message.to(), to,
                        failure.toString());
            }
        });
    }

    /**
     * Asks member {@code leader} of the group for its read index ({@code REPLICA_READ_INDEX}); the
     * future fails when that datanode cannot confirm it leads or cannot be reached.
     */
    public CompletableFuture<Long> readIndex(GroupMembers members, int leader) {
        InetSocketAddress to = members.address(leader);
        if (to == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("group " + members.groupId()
                    + " has no member " + leader));
        }
        RpcClient peer = control.computeIfAbsent(to, transport::connect);
        return peer.call(Opcode.REPLICA_READ_INDEX,
                body -> ReplicationCodec.writeHeader(body, members.groupId(), members.version()),
                answer -> ReplicationCodec.readNonNegative(answer, "read index"));
    }

    /** The checkpoint image transfers to other members. */
    public ImageTransfers transfers() {
        return transfers;
    }

    /** Messages handed to a connection so far. */
    public long sent() {
        return sent.sum();
    }

    /** Messages that did not reach their datanode (no address, connection lost, refused). */
    public long dropped() {
        return dropped.sum();
    }

    @Override
    public void close() {
        bulk.values().forEach(RpcClient::close);
        bulk.clear();
        control.values().forEach(RpcClient::close);
        control.clear();
    }
}
