package io.tarn.replication.host;

import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;

/**
 * A journal that keeps the state in memory and reports every operation durable at once, from the
 * appending thread ({@code tarn.replication.journal = memory}). Nothing survives the process: use it
 * for tests and for groups whose data is itself volatile. {@link #state()} gives the state as of the
 * last append, so a test can restart a replica in the same process.
 */
public final class MemoryJournal extends JournalBase {

    private final JournalListener listener;
    private final JournalState state;
    private boolean closed;

    /** A journal starting from {@code initial} (such as {@link PersistentState#initialVoter()}). */
    public MemoryJournal(long groupId, PersistentState initial, JournalListener listener) {
        super(groupId, initial);
        this.listener = listener;
        this.state = new JournalState(initial);
    }

    @Override
    public Admission append(DiskOp op) {
        synchronized (this) {
            if (closed) {
                return Admission.FAILED;
            }
            state.apply(op, 0);
        }
        listener.durable(groupId(), op.id());
        return Admission.QUEUED;
    }

    /** The state after every operation appended so far. */
    public synchronized PersistentState state() {
        return state.snapshot();
    }

    @Override
    public synchronized String failure() {
        return closed ? "journal of group " + groupId() + " is closed" : null;
    }

    @Override
    public synchronized void close() {
        closed = true;
    }
}
