package io.tarn.rpc;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.Opcode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connection of a client or datanode to a partition served by a replicated namenode group: each
 * call goes to the member believed to lead, and follows the group as its leader changes, as a client
 * of a Raft group does (docs/namespace-journal.md, "Replicated namenode groups").
 *
 * <ul>
 *   <li>NOT_LEADER names the leader ({@code Redirect(member, host:port)}): the call goes there, at
 *       once the first time and after {@value #PAUSE_MS} ms afterwards (members name a leader that
 *       just died until they elect another), and so do later calls.</li>
 *   <li>A member that cannot be reached ({@link NotSentException}: the call never left) hands the
 *       call to the next member, after {@value #PAUSE_MS} ms once every member was tried.</li>
 *   <li>A client's mutation goes as {@code Opcode.ONCE}, with this connection's client id and a call
 *       id of its own: the group applies it at most once and answers it again from its retry cache
 *       if it is sent again. So a mutation, like a lookup, that was sent but lost with its
 *       connection (the member died) is sent again to the next member. A lease renewal, which
 *       changes the same thing however often it comes, goes as it is.</li>
 *   <li>RETRY (the member has no leader serving yet, or is busy; nothing was done) sends the call
 *       to the next member after {@value #PAUSE_MS} ms.</li>
 * </ul>
 * A call gives up following after {@code giveUpMs} and fails with the last answer. Other answers go
 * to the caller. Members are those the configuration or the partition map lists, and any a redirect names. The
 * connection to each member is opened on first use and kept. Thread-safe.
 */
public final class LeaderRpc implements RpcClient {
    /** Pause before a call's second redirect, a RETRY, and a new round once no member could be reached. */
    static final long PAUSE_MS = 50;

    private final Transport transport;
    private final long giveUpNanos;
    /** This connection's id in the calls it makes once (a client id of its own, random). */
    private final long clientId = ThreadLocalRandom.current().nextLong();
    private final AtomicLong calls = new AtomicLong();
    private final ConcurrentHashMap<String, RpcClient> connections = new ConcurrentHashMap<>();
    private final String name;
    private volatile List<String> members;
    private volatile String leader;

    /**
     * @param transport the client's transport
     * @param members   the group's members as configured, in member order
     * @param giveUpMs  how long a call tries members that cannot be reached before it fails
     */
    public LeaderRpc(Transport transport, List<HostPort> members, long giveUpMs) {
        this.transport = transport;
        this.giveUpNanos = TimeUnit.MILLISECONDS.toNanos(giveUpMs);
        List<String> names = new ArrayList<>();
        for (HostPort m : members) {
            names.add(m.toString());
        }
        this.members = List.copyOf(names);
        this.name = String.join("|", names);
        this.leader = names.get(0);
    }

    /** Adds members the partition map lists (a client configured with fewer learns them). */
    public void learn(List<HostPort> more) {
        synchronized (this) {
            List<String> now = new ArrayList<>(members);
            for (HostPort m : more) {
                if (!now.contains(m.toString())) {
                    now.add(m.toString());
                }
            }
            members = List.copyOf(now);
        }
    }

    private RpcClient connection(String member) {
        return connections.computeIfAbsent(member, m -> transport.connect(HostPort.parse(m).toSocketAddress()));
    }

    @Override
    public <T> CompletableFuture<T> call(int opcode, BodyWriter writer, ResponseDecoder<T> decoder) {
        CompletableFuture<T> result = new CompletableFuture<>();
        long giveUpAt = System.nanoTime() + giveUpNanos;
        if (Opcode.audience(opcode) == Audience.CLIENT && !Opcode.isReadOnly(opcode) && opcode != Opcode.RENEW_LEASE) {
            // A client's mutation goes with this connection's id and a call id, the same however
            // often it is sent: the group applies it at most once (Opcode.ONCE).
            long callId = calls.incrementAndGet();
            BodyWriter once = b -> {
                b.writeLong(clientId).writeLong(callId).writeShort(opcode);
                writer.write(b);
            };
            attempt(Opcode.ONCE, once, decoder, result, leader, 0, 0, giveUpAt);
        } else {
            attempt(opcode, writer, decoder, result, leader, 0, 0, giveUpAt);
        }
        return result;
    }

    private <T> void attempt(int opcode, BodyWriter writer, ResponseDecoder<T> decoder, CompletableFuture<T> result,
                             String member, int redirects, int unreachable, long giveUpAt) {
        connection(member).call(opcode, writer, decoder).whenComplete((answer, failure) -> {
            if (failure == null) {
                result.complete(answer);
                return;
            }
            Throwable cause = unwrap(failure);
            boolean inTime = System.nanoTime() - giveUpAt < 0;
            if (TarnException.codeOf(cause) == ErrorCode.NOT_LEADER && cause instanceof TarnException t
                    && t.detail() instanceof ErrorDetail.Redirect r && (redirects == 0 || inTime)) {
                learn(List.of(HostPort.parse(r.address())));
                leader = r.address();
                if (redirects == 0) {
                    attempt(opcode, writer, decoder, result, r.address(), 1, 0, giveUpAt);
                } else {
                    // Members may name a leader that just died until they elect another.
                    CompletableFuture.delayedExecutor(PAUSE_MS, TimeUnit.MILLISECONDS).execute(() ->
                            attempt(opcode, writer, decoder, result, r.address(), redirects + 1, 0, giveUpAt));
                }
                return;
            }
            if (TarnException.codeOf(cause) == ErrorCode.RETRY && inTime) {
                // Nothing was done: the member has no leader serving yet (or is busy); another may know one.
                String next = next(member);
                CompletableFuture.delayedExecutor(PAUSE_MS, TimeUnit.MILLISECONDS).execute(() ->
                        attempt(opcode, writer, decoder, result, next, redirects, 0, giveUpAt));
                return;
            }
            boolean resendable = Opcode.isReadOnly(opcode) || opcode == Opcode.ONCE || opcode == Opcode.RENEW_LEASE;
            boolean lost = resendable && TarnException.codeOf(cause) == ErrorCode.CONNECTION_LOST;
            if ((cause instanceof NotSentException || lost) && inTime) {
                List<String> all = members;
                String next = next(member);
                if (leader.equals(member)) {
                    leader = next;
                }
                if (unreachable + 1 >= all.size()) {
                    CompletableFuture.delayedExecutor(PAUSE_MS, TimeUnit.MILLISECONDS).execute(() ->
                            attempt(opcode, writer, decoder, result, next, redirects, 0, giveUpAt));
                } else {
                    attempt(opcode, writer, decoder, result, next, redirects, unreachable + 1, giveUpAt);
                }
                return;
            }
            result.completeExceptionally(cause);
        });
    }

    /** The member after {@code member} in member order. */
    private String next(String member) {
        List<String> all = members;
        return all.get((Math.max(0, all.indexOf(member)) + 1) % all.size());
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Calls with a payload (data, not metadata) go to the member believed to lead, as they are. */
    @Override
    public <T> CompletableFuture<T> call(int opcode, BodyWriter writer, ByteBuf payload, ResponseDecoder<T> decoder) {
        return connection(leader).call(opcode, writer, payload, decoder);
    }

    @Override
    public <T> CompletableFuture<T> callInto(int opcode, BodyWriter writer, ResponseTarget target,
                                             ResponseDecoder<T> decoder) {
        return connection(leader).callInto(opcode, writer, target, decoder);
    }

    /** The group as configured ({@code h1:p|h2:p|h3:p}): the same for the connection's whole life. */
    @Override
    public String remote() {
        return name;
    }

    @Override
    public void close() {
        connections.values().forEach(RpcClient::close);
        connections.clear();
    }
}
