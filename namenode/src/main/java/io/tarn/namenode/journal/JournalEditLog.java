package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;

/**
 * The {@link EditLog} of a namenode that journals to disk: records go to its
 * {@link NamespaceJournal}, attached once the journal has been replayed (the namespace is built
 * before the journal opens, and replay appends nothing).
 */
public final class JournalEditLog implements EditLog {
    private volatile NamespaceJournal journal;

    /** From now on records go to {@code target}. */
    public void attach(NamespaceJournal target) {
        this.journal = target;
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public long append(int type, ByteBuf body) {
        NamespaceJournal j = journal;
        if (j == null) {
            body.release();
            throw new JournalFailedException("the namespace journal is not open yet: nothing may change the "
                    + "namespace before it has been replayed");
        }
        return j.append(type, body);
    }
}
