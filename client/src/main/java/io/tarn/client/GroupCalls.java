package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.GroupProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcClient;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Writes and reads of replicated blocks, sent to their group's leader ({@link GroupProtocol}).
 *
 * <p>A call goes to the member this client last saw lead the group (at first the namenode's hint)
 * and follows the group as a client of a Raft group does: a NOT_LEADER answer names the leader and
 * the call goes there at once; RETRY (an election or a sync under way, a full window),
 * UNKNOWN_GROUP (a new group not yet at its members) and GROUP_UNAVAILABLE are tried again after a
 * pause (1 ms, doubling up to 64 ms); a member that cannot be reached (connection refused or lost,
 * no answer in time) is left for the next member. A write keeps its sequence number across these
 * attempts, so the group applies it at most once. Attempts stop {@code tarn.rpc.timeout} after the
 * first; the call then fails with the last answer, which names the group and what it waits for
 * (for a group without quorum: its unreachable members). Other errors (INVALID_TOKEN,
 * STALE_GENERATION, OUT_OF_RANGE, ...) fail the call at once.
 *
 * <p>Every write carries the lowest sequence this client still waits for, so the members can forget
 * the sequences below it. Thread-safe.
 */
final class GroupCalls {
    private static final RpcClient.ResponseDecoder<Void> NO_BODY = b -> null;
    private static final RpcClient.ResponseDecoder<ByteBuf> RETAIN = ByteBuf::retainedSlice;
    private static final int MAX_REDIRECTS = 16;

    private final Function<GroupMember, RpcClient> connect;
    private final long clientId;
    private final long timeoutNanos;
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentSkipListSet<Long> unacked = new ConcurrentSkipListSet<>();
    private final ConcurrentHashMap<Long, Integer> leaders = new ConcurrentHashMap<>();

    /**
     * @param connect       the connection to a member's datanode
     * @param clientId      this client's id (with a sequence, it names a write across retries)
     * @param timeoutMillis how long after the first attempt another may start
     */
    GroupCalls(Function<GroupMember, RpcClient> connect, long clientId, long timeoutMillis) {
        this.connect = connect;
        this.clientId = clientId;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** Writes {@code data} (ownership passes to this call) at {@code offset} inside the replicated block. */
    CompletableFuture<Void> write(BlockRef ref, int offset, ByteBuf data) {
        long seq = sequence.incrementAndGet();
        unacked.add(seq);
        int length = data.readableBytes();
        Call<Void> call = new Call<>(ref, (member, rpc) -> rpc.call(Opcode.GROUP_WRITE,
                b -> GroupProtocol.writeAccess(b, ref.group().groupId(), ref.blockIndex(), ref.generation(),
                        member.token(), ref.tokenStamp(), offset, length, clientId, seq, firstUnacked(seq)),
                data.retainedDuplicate(), NO_BODY));
        call.start();
        return call.result.whenComplete((v, e) -> {
            unacked.remove(seq);
            data.release();
        });
    }

    /** Reads {@code length} bytes at {@code offset} from the group's leader; the caller releases the result. */
    CompletableFuture<ByteBuf> read(BlockRef ref, int offset, int length) {
        Call<ByteBuf> call = new Call<>(ref, (member, rpc) -> rpc.call(Opcode.GROUP_READ,
                b -> GroupProtocol.writeAccess(b, ref.group().groupId(), ref.blockIndex(), ref.generation(),
                        member.token(), ref.tokenStamp(), offset, length, clientId, 0, 0), RETAIN));
        call.start();
        return call.result;
    }

    /**
     * Reads at {@code member} whether or not it leads ({@link GroupProtocol#READ_AT_ANY_MEMBER}): it
     * answers once it applied every write the group acknowledged before the read. One attempt, no
     * redirect: the caller falls back to {@link #read}. A length of 0 just waits for the member.
     */
    CompletableFuture<ByteBuf> readAt(BlockRef ref, GroupMember member, int offset, int length) {
        try {
            return connect.apply(member).call(Opcode.GROUP_READ,
                    b -> GroupProtocol.writeAccess(b, ref.group().groupId(), ref.blockIndex(), ref.generation(),
                            member.token(), ref.tokenStamp(), offset, length, clientId,
                            GroupProtocol.READ_AT_ANY_MEMBER, 0), RETAIN);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The member that answered the group's last call here, or the namenode's guess. */
    int leaderGuess(BlockGroup group) {
        return leaders.getOrDefault(group.groupId(), group.leaderMemberId());
    }

    private long firstUnacked(long seq) {
        Long first = unacked.isEmpty() ? null : unacked.first();
        return first == null ? seq : Math.min(first, seq);
    }

    /** One request to one member. */
    @FunctionalInterface
    private interface Attempt<T> {
        CompletableFuture<T> send(GroupMember member, RpcClient rpc);
    }

    /** A call to a group, with its attempts. */
    private final class Call<T> {
        final CompletableFuture<T> result = new CompletableFuture<>();
        private final BlockGroup group;
        private final Attempt<T> attempt;
        private final long deadline = System.nanoTime() + timeoutNanos;
        private int redirects;
        /** The last answer a member gave that is tried again (RETRY, NOT_LEADER, ...), or null. */
        private Throwable lastAnswer;
        private long pauseMs = Backoff.FIRST_PAUSE_MS;

        Call(BlockRef ref, Attempt<T> attempt) {
            this.group = ref.group();
            this.attempt = attempt;
        }

        void start() {
            send(leaders.getOrDefault(group.groupId(), group.leaderMemberId()));
        }

        private void send(int memberId) {
            GroupMember member = group.member(memberId);
            if (member == null) {
                member = group.members().get(0);
            }
            GroupMember to = member;
            CompletableFuture<T> answer;
            try {
                answer = attempt.send(to, connect.apply(to));
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            answer.whenComplete((v, e) -> {
                if (e == null) {
                    leaders.put(group.groupId(), to.memberId());
                    result.complete(v);
                } else {
                    failed(to, Failures.unwrap(e));
                }
            });
        }

        private void failed(GroupMember member, Throwable cause) {
            ErrorCode code = cause instanceof TarnError t ? t.code() : ErrorCode.CONNECTION_LOST;
            if (code == ErrorCode.NOT_LEADER && cause instanceof TarnException t
                    && t.detail() instanceof ErrorDetail.Redirect r && redirects++ < MAX_REDIRECTS
                    && group.member(r.partition()) != null) {
                send(r.partition());
                return;
            }
            boolean retryable = code == ErrorCode.RETRY || code == ErrorCode.UNKNOWN_GROUP
                    || code == ErrorCode.GROUP_UNAVAILABLE || code == ErrorCode.NOT_LEADER;
            boolean unreachable = code == ErrorCode.CONNECTION_LOST || code == ErrorCode.TIMEOUT
                    || code == ErrorCode.DATANODE_DEAD || code == ErrorCode.UNKNOWN_DATANODE;
            if ((!retryable && !unreachable) || System.nanoTime() > deadline) {
                result.completeExceptionally(unreachable ? unreachable(member, cause) : cause);
                return;
            }
            if (retryable) {
                lastAnswer = cause;
            }
            int next = unreachable || code == ErrorCode.NOT_LEADER ? nextMember(member) : member.memberId();
            long pause = pauseMs;
            pauseMs = Backoff.nextPause(pauseMs);
            CompletableFuture.runAsync(() -> send(next),
                    CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS));
        }

        /**
         * The error of a call whose last attempt found no one at {@code member}: GROUP_UNAVAILABLE
         * naming the group and that member, with what the last member that did answer said (for a
         * group without quorum, its unreachable members), so the caller learns which group failed
         * whichever member the attempts stopped at.
         */
        private TarnException unreachable(GroupMember member, Throwable cause) {
            String message = "group " + group.groupId() + ": member " + member.memberId() + " at " + member.host()
                    + ":" + member.port() + " cannot be reached (" + cause.getMessage() + ")";
            if (lastAnswer != null) {
                message += "; the last member to answer said: " + lastAnswer.getMessage();
            }
            return new TarnException(ErrorCode.GROUP_UNAVAILABLE, message, cause);
        }

        private int nextMember(GroupMember member) {
            List<GroupMember> members = group.members();
            for (int i = 0; i < members.size(); i++) {
                if (members.get(i).memberId() == member.memberId()) {
                    return members.get((i + 1) % members.size()).memberId();
                }
            }
            return members.get(0).memberId();
        }
    }
}
