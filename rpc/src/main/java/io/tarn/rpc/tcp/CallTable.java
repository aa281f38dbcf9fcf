package io.tarn.rpc.tcp;

import io.netty.util.collection.LongObjectHashMap;

import java.util.ArrayDeque;

/**
 * The calls one {@link TcpClient} connection has in flight: it gives each call sent its request
 * id, finds the call an answer is for, and keeps the calls in send order for the timeout check.
 *
 * <p>Used by the client's event loop only (its sending and its {@link AnswerHandler}), so nothing
 * in it is synchronized. It guarantees that a call is found under its id from {@link #track} until
 * it is settled ({@link #settle}, {@link #expireHead} or {@link #clear}) and never after, and that
 * the send-order queue holds about as many calls as are in flight, not every call answered since
 * the last timeout check.
 *
 * <p>It is the id map itself (use {@link #track}, {@link #tracked} and {@link #settle}, never the
 * map's own methods, which take keys, not ids): the client reaches the map, the send order and the
 * next id through this one object, as it reached them through its own fields before they moved here.
 */
final class CallTable extends LongObjectHashMap<PendingCall<?>> {
    private final ArrayDeque<PendingCall<?>> bySendTime = new ArrayDeque<>();
    private long nextId = 1;

    /**
     * The key a call's id is kept under in the map: the id times an odd constant (a one-to-one
     * map). Ids are consecutive, and the map, which probes linearly and indexes by the key's low
     * bits, would keep them in one contiguous run of slots; removing the oldest (answers come mostly
     * in order) then shifts through the whole run, one step per call in flight, which took a fifth
     * of a client's I/O thread at 128 getFile calls in flight (docs/performance-history.md). Scattered keys
     * keep the runs short.
     */
    static long slotKey(long id) {
        return id * 0x9E3779B97F4A7C15L;
    }

    /** Gives {@code call} the next request id and keeps it in flight under that id; returns the id. */
    long track(PendingCall<?> call) {
        long id = nextId++;
        call.id = id;
        call.settled = false;
        put(slotKey(id), call);
        bySendTime.addLast(call);
        return id;
    }

    /** The call in flight under {@code id}, or null. */
    PendingCall<?> tracked(long id) {
        return get(slotKey(id));
    }

    /**
     * Takes the call in flight under {@code id} out of the table and marks it settled; null when
     * there is none (it timed out earlier, or its connection was lost).
     */
    PendingCall<?> settle(long id) {
        PendingCall<?> call = remove(slotKey(id));
        if (call != null) {
            call.settled = true;
            trimSettled();
        }
        return call;
    }

    /**
     * The oldest call in flight when its deadline passed before {@code now}, taken out of the table
     * and marked settled; else null. Calls leave in send order, so only the head is checked.
     */
    PendingCall<?> expireHead(long now) {
        trimSettled();
        PendingCall<?> head = bySendTime.peekFirst();
        if (head == null || now - head.deadline < 0) {
            return null;
        }
        bySendTime.pollFirst();
        remove(slotKey(head.id));
        head.settled = true;
        return head;
    }

    /** Forgets every call in flight (their connection is gone); the caller settles them first. */
    @Override
    public void clear() {
        super.clear();
        bySendTime.clear();
    }

    /** Calls still in the send-order queue of the timeout check (for tests). */
    int trackedForTimeout() {
        return bySendTime.size();
    }

    /**
     * Drops answered calls from the head of the send order. Answers mostly come in send order, so
     * the queue stays about as long as the calls in flight, instead of holding every answered call
     * (and what it decoded) until the next timeout check.
     */
    private void trimSettled() {
        PendingCall<?> head;
        while ((head = bySendTime.peekFirst()) != null && head.settled) {
            bySendTime.pollFirst();
        }
    }
}
