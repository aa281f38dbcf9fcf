package io.tarn.replication.host;

import io.tarn.replication.DiskOp;
import io.tarn.replication.Message;
import io.tarn.replication.Role;

/**
 * Where a {@link GroupRunner} sends what its replica asks for, other than block state: messages to
 * the other members and writes to the group's journal. Implementations must not block the calling
 * loop thread: a send that cannot be made now is dropped (the protocol resends), a journal append
 * is queued and its completion reported later through {@link GroupRunner#durable(long)}.
 */
public interface GroupOutputs {

    /** Sends a message to another member of {@code groupId}; may drop it. */
    void send(long groupId, Message message);

    /** Queues a durable write; the journal reports it with {@link GroupRunner#durable(long)}. */
    void persist(long groupId, DiskOp op);

    /** Called on the loop thread at every timer tick, after the replica's ticks (to retry held work). */
    default void onTimer(long groupId) {
    }

    /** The replica changed role or term (for leader reports and metrics); called on the loop thread. */
    default void roleChanged(long groupId, Role role, long term, int leaderId) {
    }
}
