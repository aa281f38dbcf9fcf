package io.tarn.datanode.replication;

import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;

/**
 * A hosted group's journal as the host sees it: every op goes to the real journal, and the term of
 * the last hard state the replica recorded is kept, so that a heartbeat can tell the namenode in
 * which term this member leads (a replica records its term before it campaigns, so a leader's term
 * is the last one recorded).
 */
final class HostedJournal implements ReplicaJournal {
    private final ReplicaJournal journal;
    private volatile long term;

    HostedJournal(ReplicaJournal journal) {
        this.journal = journal;
        this.term = journal.recovered().currentTerm();
    }

    /** The term of the last hard state handed to the journal (or recovered from it). */
    long term() {
        return term;
    }

    @Override
    public long groupId() {
        return journal.groupId();
    }

    @Override
    public PersistentState recovered() {
        return journal.recovered();
    }

    @Override
    public Admission append(DiskOp op) {
        Admission a = journal.append(op);
        if (a == Admission.QUEUED && op instanceof DiskOp.PersistHardState h) {
            term = h.currentTerm();
        }
        return a;
    }

    @Override
    public String failure() {
        return journal.failure();
    }

    @Override
    public void close() {
        journal.close();
    }
}
