package io.tarn.replication.host;

import io.tarn.replication.PersistentState;

/** What every {@link ReplicaJournal} knows from its opening: the group and the recovered state. */
abstract class JournalBase implements ReplicaJournal {
    private final long groupId;
    private final PersistentState recovered;

    JournalBase(long groupId, PersistentState recovered) {
        this.groupId = groupId;
        this.recovered = recovered;
    }

    @Override
    public final long groupId() {
        return groupId;
    }

    @Override
    public final PersistentState recovered() {
        return recovered;
    }
}
