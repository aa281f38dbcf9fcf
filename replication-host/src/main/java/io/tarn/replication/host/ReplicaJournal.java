package io.tarn.replication.host;

import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;

/**
 * The durable log of one replica (one block group on this datanode): it makes the core's
 * {@link DiskOp}s durable in issue order, each atomically, reports completions through a
 * {@link JournalListener}, and after a restart gives back the {@link PersistentState} built from the
 * completed operations. A crash may lose any suffix of operations not yet reported durable, never an
 * operation that was. Implementations: {@link GroupJournal} (files, group commit) and
 * {@link MemoryJournal} (no durability, for tests and diskless runs).
 */
public interface ReplicaJournal extends AutoCloseable {

    /** The group whose replica this journal records. */
    long groupId();

    /** The state rebuilt when the journal was opened; construct the group's {@code Replica} from it. */
    PersistentState recovered();

    /** Queues {@code op}; see {@link Admission} for the outcomes. Ops of one group must come in issue order. */
    Admission append(DiskOp op);

    /** Why the journal failed, or {@code null} while it is healthy. */
    String failure();

    /** Stops accepting operations once those already queued are done, and releases the files. */
    @Override
    void close();
}
