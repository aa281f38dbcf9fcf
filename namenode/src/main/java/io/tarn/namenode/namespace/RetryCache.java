package io.tarn.namenode.namespace;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.namenode.journal.EditLog;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The answers to the client calls a namenode group applied once ({@code Opcode.ONCE}), by client id
 * and call id, as HDFS's retry cache keeps them: a call sent again (its connection died with the
 * leader before the answer came, and it went to the new leader) is answered with the first answer
 * instead of being applied twice.
 *
 * <p>Each answer is recorded ({@link #RECORD}) with the call's own records, before the answer is
 * sent, so it is committed with them: every member that holds the call's changes holds its answer,
 * followers by replaying the record, restarted members from their journal and checkpoint images.
 * A call is kept {@link #KEEP_MS} ms after it was answered here (or replayed here), and at most
 * {@link #MAX_ENTRIES} calls are kept, the oldest going first: a client sends a call again within
 * its RPC timeout, far below both.
 *
 * <p>Record body: {@code clientId[i64] callId[i64] length[i32] answer[length]}. Thread-safe.
 */
public final class RetryCache {
    /** The journal record of an answer. */
    public static final int RECORD = 30;
    /** How long an answered call is kept. */
    public static final long KEEP_MS = 10 * 60_000;
    /** Calls kept at most. */
    public static final int MAX_ENTRIES = 200_000;
    /** Answers bigger than this are not kept (mutations answer a file status at most). */
    static final int MAX_ANSWER = 64 * 1024;

    /** A call: which client, which of its calls. */
    public record Key(long clientId, long callId) {
    }

    /** An answered call: the answer's bytes, and when it was kept. */
    private record Answer(byte[] bytes, long keptAt) {
    }

    private final ConcurrentHashMap<Key, Answer> answers = new ConcurrentHashMap<>();
    /** Calls in the order they were kept, for eviction; guarded by itself. */
    private final ArrayDeque<Key> order = new ArrayDeque<>();
    private final ConcurrentHashMap<Key, Boolean> inProgress = new ConcurrentHashMap<>();

    /** The answer kept for {@code key} (a new buffer the caller owns), or null. */
    public ByteBuf answer(Key key) {
        Answer a = answers.get(key);
        return a == null ? null : Unpooled.wrappedBuffer(a.bytes());
    }

    /** Marks {@code key} as being applied here; false when it is already (the same call sent twice at once). */
    public boolean begin(Key key) {
        return inProgress.putIfAbsent(key, Boolean.TRUE) == null;
    }

    /** {@code key} is no longer being applied here (answered, or failed). */
    public void end(Key key) {
        inProgress.remove(key);
    }

    /**
     * Records and keeps the answer of {@code key}: the record goes to {@code log} before the
     * answer is sent. An answer too big to keep is neither recorded nor kept.
     */
    public void keep(Key key, ByteBuf answer, EditLog log, long now) {
        int n = answer.readableBytes();
        if (n > MAX_ANSWER) {
            return;
        }
        byte[] bytes = new byte[n];
        answer.getBytes(answer.readerIndex(), bytes);
        if (log.enabled()) {
            ByteBuf b = Unpooled.buffer(20 + n);
            b.writeLong(key.clientId()).writeLong(key.callId()).writeInt(n).writeBytes(bytes);
            log.append(RECORD, b);
        }
        put(key, bytes, now);
    }

    /** Replays a {@link #RECORD} body. */
    void replay(ByteBuf body, long now) {
        Key key = new Key(body.readLong(), body.readLong());
        int n = body.readInt();
        if (n < 0 || n > body.readableBytes()) {
            throw new IllegalStateException("a retry cache record with an answer of " + n + " bytes");
        }
        byte[] bytes = new byte[n];
        body.readBytes(bytes);
        put(key, bytes, now);
    }

    /** Appends a record of every call kept (for checkpoint images). */
    void record(EditLog log) {
        answers.forEach((key, a) -> {
            ByteBuf b = Unpooled.buffer(20 + a.bytes().length);
            b.writeLong(key.clientId()).writeLong(key.callId()).writeInt(a.bytes().length).writeBytes(a.bytes());
            log.append(RECORD, b);
        });
    }

    private void put(Key key, byte[] bytes, long now) {
        if (answers.put(key, new Answer(bytes, now)) == null) {
            synchronized (order) {
                order.addLast(key);
                while (order.size() > MAX_ENTRIES) {
                    answers.remove(order.pollFirst());
                }
            }
        }
    }

    /** Drops the calls kept longer than {@link #KEEP_MS}; returns how many. */
    public int expire(long now) {
        int n = 0;
        synchronized (order) {
            while (!order.isEmpty()) {
                Key oldest = order.peekFirst();
                Answer a = answers.get(oldest);
                if (a != null && now - a.keptAt() < KEEP_MS) {
                    break;
                }
                order.pollFirst();
                if (a != null) {
                    answers.remove(oldest);
                    n++;
                }
            }
        }
        return n;
    }

    /** Calls kept. */
    public int size() {
        return answers.size();
    }
}
