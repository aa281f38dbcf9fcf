package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;

import java.io.IOException;

/** Receives the records of a namespace journal being replayed at start-up, in sequence order. */
@FunctionalInterface
public interface JournalReplayer {
    /**
     * Applies one record.
     *
     * @param seq  its sequence number
     * @param type its type, as appended
     * @param body its body, valid during the call only
     * @throws IOException when the record cannot be applied (the namenode does not start)
     */
    void replay(long seq, int type, ByteBuf body) throws IOException;
}
