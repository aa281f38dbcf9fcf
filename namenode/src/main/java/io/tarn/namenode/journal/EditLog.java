package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;

/**
 * Where the namespace writes the record of each mutation, at the point where the mutation takes
 * effect and under the lock that orders it against conflicting mutations of the same entry (see
 * the namespace's records). {@link #NONE} keeps nothing, and no record is even encoded.
 */
public interface EditLog {
    /** Keeps nothing: the namespace lives in memory only ({@code tarn.namenode.journal = none}). */
    EditLog NONE = new EditLog() {
        @Override
        public boolean enabled() {
            return false;
        }

        @Override
        public long append(int type, ByteBuf body) {
            body.release();
            return 0;
        }
    };

    /** False when records are not kept, so that callers skip encoding them. */
    boolean enabled();

    /**
     * Keeps one record, which the log owns from now on; returns its sequence number. Must not block
     * or do I/O: it is called under the namespace's locks.
     */
    long append(int type, ByteBuf body);
}
