package io.tarn.rpc.tcp;

/**
 * When a connection flushes what it writes while handling a read batch: at the end of the batch at
 * the latest, and part-way once enough writes wait.
 *
 * <p>Why part-way: with N pipelined calls in flight, a peer that answers a whole batch before
 * flushing leaves the other end idle meanwhile, and the two ends take turns instead of working at
 * once. A client flushes once half its calls in flight are written ({@link #clientFlushAt}), so
 * its calls travel as two half-batches: while the server answers one, the client handles the
 * answers to the other. A server flushes every {@link #SERVER_FLUSH_AT} answers, which splits
 * batches from clients that do not pace themselves. Measured on 2 cores with 64 and 128 getFile
 * calls in flight (docs/performance-history.md).
 *
 * <p>One per connection, used on its event loop only.
 */
final class FlushPacer {
    /** Fewer writes than this never flush part-way: each flush is a system call. */
    static final int MIN_WRITES = 8;
    /** Answers after which a server flushes part-way through a read batch. */
    static final int SERVER_FLUSH_AT = 64;

    private boolean inReadBatch;
    private int unflushed;

    /** Writes after which a client with {@code inflight} calls outstanding flushes part-way. */
    static int clientFlushAt(int inflight) {
        return Math.max(MIN_WRITES, inflight / 2);
    }

    /** A message of the current read batch arrived. */
    void read() {
        inReadBatch = true;
    }

    /** True between the first read of a batch and its end. */
    boolean inReadBatch() {
        return inReadBatch;
    }

    /**
     * One write was made without flushing; true when the caller should flush now because
     * {@code flushAt} writes wait (the count then starts again).
     */
    boolean wroteShouldFlush(int flushAt) {
        if (++unflushed >= flushAt) {
            unflushed = 0;
            return true;
        }
        return false;
    }

    /** The read batch ended; true when writes wait for a flush (the count then starts again). */
    boolean batchEndedShouldFlush() {
        inReadBatch = false;
        return takeUnflushed();
    }

    /** True when writes wait for a flush, which the caller now does (the count starts again). */
    boolean takeUnflushed() {
        boolean any = unflushed > 0;
        unflushed = 0;
        return any;
    }
}
