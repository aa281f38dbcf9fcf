package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;

/**
 * The {@link EditLog} of a namenode that keeps its records: they go to its {@link NamespaceJournal},
 * or at a namenode group's leader to the group's replicated log, attached once the namespace has
 * been rebuilt from what was kept (the namespace is built before the log opens, and replay appends
 * nothing).
 */
public final class JournalEditLog implements EditLog {
    private volatile SequencedLog journal;

    /** From now on records go to {@code target}. */
    public void attach(SequencedLog target) {
        this.journal = target;
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public long append(int type, ByteBuf body) {
        SequencedLog j = journal;
        if (j == null) {
            body.release();
            throw new JournalFailedException("the namespace journal is not open yet: nothing may change the "
                    + "namespace before it has been replayed");
        }
        return j.append(type, body);
    }
}
