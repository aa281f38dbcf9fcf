package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import io.tarn.common.error.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The ordering half of a log of namespace records, with group commit: where a record gets its
 * sequence number and waits, and where its callbacks run once it is durable. What makes records
 * durable is the subclass's: a {@link NamespaceJournal} writes and forces them to a local disk; a
 * namenode group's log has its group's members write them.
 *
 * <p>A mutation appends its record where it takes effect, under the lock that orders it against
 * conflicting mutations of the same object ({@link #append}: no I/O, no lock of the log's own; the
 * record gets the next sequence number and joins a lock-free queue). One writer thread takes
 * everything queued as a batch and hands the contiguous run of records to {@link #writeRun}, which
 * makes them durable at once (one {@code force}, one replicated write), and then runs the callbacks
 * of every record made durable ({@link #whenDurable}): many concurrent mutations share one
 * {@code force}, and no I/O thread ever waits. A mutation is acknowledged from its callback, so an
 * acknowledged mutation is durable.
 *
 * <p>Sequence numbers are taken with one atomic increment and the record is queued right after, so
 * the queue may briefly hold a record before one with a lower number; the writer takes only the
 * contiguous run and waits for the missing record. Two mutations of one object append under that
 * object's lock, so the log orders them as memory did, and replaying it in sequence order rebuilds
 * the same state.
 *
 * <p>Back-pressure: {@link #full()} says when the records not yet durable reached the capacity; a
 * caller checks it before mutating (a mutation cannot be refused once applied) and answers busy.
 *
 * <p>Failure is final: when making records durable fails, memory is ahead of the log, so every
 * waiting callback hears the failure, every later append throws {@link JournalFailedException} with
 * the reason, and only a restart, which rebuilds the namespace from what the log kept, brings
 * mutations back.
 */
public abstract class SequencedLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SequencedLog.class);
    private static final Object STOP = new Object();
    /** Bytes a record's body may hold at most. */
    public static final int MAX_BODY = JournalFormat.MAX_BODY;

    /** A record appended and not yet handed to {@link #writeRun}; the log owns its body. */
    protected static final class Pending {
        private final int type;
        private final ByteBuf body;
        private final Scope scope;
        private long seq;

        private Pending(int type, ByteBuf body, Scope scope) {
            this.type = type;
            this.body = body;
            this.scope = scope;
        }
    }

    /**
     * The records of one call that must become durable together: a client's call applied once
     * ({@code Opcode.ONCE}) and the record of its answer, so that no member can hold the call's
     * change without its answer. Records appended on a thread while it is in a scope ({@link #enter})
     * belong to it; the writer does not end a batch after a record of an open scope while the next
     * record is on its way (at most {@value #SCOPE_WAIT_MS} ms, then it goes on without).
     */
    public static final class Scope {
        private volatile boolean closed;
    }

    /** Longest wait for the rest of an open scope's records before a batch is made durable without them. */
    static final long SCOPE_WAIT_MS = 20;
    private static final FastThreadLocal<Scope> CURRENT = new FastThreadLocal<>();
    private static final Object NUDGE = new Object();

    /** Records this thread appends from now on belong to {@code scope}, until {@link #leave}. */
    public static void enter(Scope scope) {
        CURRENT.set(scope);
    }

    /** Records this thread appends belong to no scope. */
    public static void leave() {
        CURRENT.remove();
    }

    /** The scope's records are all appended: the writer need not wait for more of them. */
    public void close(Scope scope) {
        scope.closed = true;
        queue.offer(NUDGE);
    }

    private record Waiter(long seq, Runnable done, Consumer<String> failed) {
    }

    /** Work for the writer thread, between two batches. */
    @FunctionalInterface
    protected interface Task {
        void run() throws IOException;
    }

    private record Submitted(Task task, CompletableFuture<?> result) {
    }

    private final String what;
    private final int capacity;
    private final LinkedTransferQueue<Object> queue = new LinkedTransferQueue<>();
    private final AtomicLong lastAssigned;
    private final AtomicLong notDurable = new AtomicLong();
    private final LongAdder appended = new LongAdder();
    private final CRC32C crc = new CRC32C();
    private Thread writer;
    private volatile long durable;
    private volatile String failure;
    private volatile boolean closed;
    /** The last record handed to {@link #writeRun}; writer thread only. */
    private long written;
    // Writer thread only: what is queued, sorted, and whether STOP came.
    private final PriorityQueue<Pending> reorder = new PriorityQueue<>(Comparator.comparingLong(p -> p.seq));
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>(Comparator.comparingLong(Waiter::seq));
    private final List<Submitted> tasks = new ArrayList<>();
    private final List<Object> batch = new ArrayList<>();
    private boolean stopping;
    /** The scope of the last record {@link #next} handed out, or null. */
    private Scope lastScope;

    /**
     * @param what     the log as messages name it ("namespace journal /data/nn")
     * @param lastSeq  the last record the log holds already (0: none)
     * @param capacity records appended but not yet durable beyond which {@link #full()} holds
     */
    protected SequencedLog(String what, long lastSeq, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.what = what;
        this.capacity = capacity;
        this.lastAssigned = new AtomicLong(lastSeq);
        this.durable = lastSeq;
        this.written = lastSeq;
    }

    /** Starts the writer thread; the subclass calls it once its own state is ready. */
    protected final void startWriter(String threadName) {
        writer = new Thread(this::run, threadName);
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * Queues a record of {@code type} (0..255) with {@code body}, which the log owns from now on
     * (and releases once written); returns its sequence number. Never blocks and does no I/O; call
     * it where the mutation takes effect, under the lock that orders it.
     *
     * @throws JournalFailedException when the log failed or is closed (the body is released)
     */
    public long append(int type, ByteBuf body) {
        if (type < 0 || type > 255) {
            body.release();
            throw new IllegalArgumentException("record type " + type);
        }
        String why = failure;
        if (why != null || closed) {
            body.release();
            throw new JournalFailedException(why != null ? why : what + " is closed", failureCode());
        }
        if (body.readableBytes() > JournalFormat.MAX_BODY) {
            int n = body.readableBytes();
            body.release();
            throw new IllegalArgumentException("a journal record of " + n + " bytes; at most "
                    + JournalFormat.MAX_BODY);
        }
        Pending p = new Pending(type, body, CURRENT.get());
        notDurable.incrementAndGet();
        p.seq = lastAssigned.incrementAndGet();
        queue.offer(p);
        appended.increment();
        return p.seq;
    }

    /**
     * Runs {@code done} once every record up to {@code seq} is durable, or {@code failed} with the
     * reason if the log fails first. Either runs at once on the calling thread when already
     * decided, else on the log's writer thread, so both must be short and must not block
     * (answering an RPC is fine: the transport hands the write to its own thread).
     */
    public void whenDurable(long seq, Runnable done, Consumer<String> failed) {
        if (seq <= durable) {
            done.run();
            return;
        }
        String why = failure;
        if (why != null) {
            failed.accept(why);
            return;
        }
        queue.offer(new Waiter(seq, done, failed));
    }

    /** {@link #whenDurable} for every record appended so far, by any thread. */
    public void barrier(Runnable done, Consumer<String> failed) {
        whenDurable(lastAssigned.get(), done, failed);
    }

    /**
     * True while the records appended but not yet durable reach the capacity: a caller refuses the
     * mutation (busy, retry) instead of applying it.
     */
    public boolean full() {
        return notDurable.get() >= capacity;
    }

    /**
     * The error a mutation is answered while the log has failed (with {@link #failure()} as its
     * reason): NAMESPACE_READ_ONLY, as a restart is needed; a log whose failure another server
     * resolves (a group's new leader) says RETRY, so that clients send the call there.
     */
    public ErrorCode failureCode() {
        return ErrorCode.NAMESPACE_READ_ONLY;
    }

    /** Why the log takes no records, or null while it works. */
    public String failure() {
        return failure;
    }

    /** The highest sequence number handed out. */
    public long lastSeq() {
        return lastAssigned.get();
    }

    /** Every record up to this sequence number is durable. */
    public long durableSeq() {
        return durable;
    }

    /** Records appended since the log was opened. */
    public long appended() {
        return appended.sum();
    }

    /** Runs {@code task} on the writer thread between batches; {@code result} fails if the log does. */
    protected final void submit(Task task, CompletableFuture<?> result) {
        String why = failure;
        if (why != null || closed) {
            result.completeExceptionally(new JournalFailedException(why != null ? why : what + " is closed",
                    failureCode()));
            return;
        }
        queue.offer(new Submitted(task, result));
    }

    /**
     * Makes durable the contiguous run of records that {@link #next} hands out, then reports them
     * with {@link #durableUpTo}; writer thread only. Throwing fails the log for good.
     */
    protected abstract void writeRun(PriorityQueue<Pending> reorder) throws IOException;

    /** The writer stopped (closed or failed); releases what the subclass holds for writing. */
    protected abstract void writerStopped();

    /** The reason the log fails for, from what {@link #writeRun} or a task threw. */
    protected abstract String failureReason(Throwable e);

    /** The next record of the contiguous run, or null when the run ends; writer thread only. */
    protected final Pending next(PriorityQueue<Pending> reorder) {
        long waitUntil = 0;
        while (reorder.isEmpty() || reorder.peek().seq != written + 1) {
            Scope open = lastScope;
            if (open == null || open.closed || stopping) {
                return null;
            }
            // The call whose record came last has more on the way (its answer): wait a moment for it.
            long now = System.nanoTime();
            if (waitUntil == 0) {
                waitUntil = now + TimeUnit.MILLISECONDS.toNanos(SCOPE_WAIT_MS);
            } else if (now - waitUntil >= 0) {
                return null;
            }
            try {
                Object o = queue.poll(waitUntil - now, TimeUnit.NANOSECONDS);
                if (o != null) {
                    batch.add(o);
                    stopping |= sort(batch, reorder, waiters, tasks);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        Pending p = reorder.poll();
        written = p.seq;
        lastScope = p.scope;
        return p;
    }

    /** The last record {@link #next} handed out. */
    protected final long written() {
        return written;
    }

    /** The {@code n} records handed out since the last call, up to {@link #written()}, are durable. */
    protected final void durableUpTo(long n) {
        if (n > 0) {
            durable = written;
            notDurable.addAndGet(-n);
        }
    }

    /**
     * Appends {@code p} to {@code out} as a journal record ({@link JournalFormat}: length, CRC32C,
     * sequence number, type, body) and releases its body; writer thread only.
     */
    protected final void encode(Pending p, ByteBuf out) {
        try {
            int length = JournalFormat.RECORD_HEAD + p.body.readableBytes();
            int start = out.writerIndex();
            out.writeInt(length);
            out.writeInt(0);
            out.writeLong(p.seq);
            out.writeByte(p.type);
            out.writeBytes(p.body, p.body.readerIndex(), p.body.readableBytes());
            crc.reset();
            crc.update(out.nioBuffer(start + JournalFormat.FRAME_HEAD, length));
            out.setInt(start + 4, (int) crc.getValue());
        } finally {
            p.body.release();
        }
    }

    /**
     * Replays the records of {@code frames} (records as {@link #encode} writes them, back to back,
     * from index 0 to the buffer's capacity) whose sequence numbers lie above {@code afterSeq}; each
     * must follow the one before, and the first may leave no gap after {@code afterSeq}.
     *
     * @return the last record's sequence number, replayed or not ({@code afterSeq} when there is none)
     * @throws JournalCorruptException when a record is damaged, cut short or out of order
     */
    public static long replayFrames(ByteBuf frames, long afterSeq, JournalReplayer replayer) throws IOException {
        return JournalRecovery.replayFrames(frames, afterSeq, replayer);
    }

    /**
     * Makes durable what was appended before, stops the writer, and fails the callbacks still
     * waiting (records appended concurrently with the close may be lost: close after mutations
     * stopped). Closing again does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        queue.offer(STOP);
        Thread w = writer;
        if (w != null) {
            try {
                w.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closed();
    }

    /** After the writer stopped at {@link #close()}: releases what the subclass holds beyond it. */
    protected void closed() {
    }

    /** The log as messages name it. */
    public final String what() {
        return what;
    }

    // ---------------------------------------------------------------- writer thread

    private void run() {
        try {
            while (!stopping || (!reorder.isEmpty() && reorder.peek().seq == written + 1 && failure == null)) {
                Object first = queue.poll(stopping ? 0 : 100, TimeUnit.MILLISECONDS);
                if (first != null) {
                    batch.add(first);
                    stopping |= sort(batch, reorder, waiters, tasks);
                }
                if (failure == null) {
                    try {
                        writeRun(reorder);
                        for (Submitted s : tasks) {
                            s.task().run();
                        }
                    } catch (IOException | RuntimeException e) {
                        fail(e);
                    }
                }
                if (failure != null) {
                    failAll(reorder, waiters, tasks, failure);
                } else {
                    tasks.clear();
                    while (!waiters.isEmpty() && waiters.peek().seq() <= durable) {
                        complete(waiters.poll());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Error e) {
            fail(e);
            throw e;
        } finally {
            sort(batch, reorder, waiters, tasks);
            failAll(reorder, waiters, tasks, failure != null ? failure : what + " was closed");
            writerStopped();
        }
    }

    /** Takes everything queued after {@code batch}'s items and files them; true when STOP was among them. */
    private boolean sort(List<Object> batch, PriorityQueue<Pending> reorder, PriorityQueue<Waiter> waiters,
                         List<Submitted> tasks) {
        queue.drainTo(batch);
        boolean stop = false;
        for (Object o : batch) {
            if (o instanceof Pending p) {
                reorder.add(p);
            } else if (o instanceof Waiter w) {
                waiters.add(w);
            } else if (o instanceof Submitted s) {
                tasks.add(s);
            } else {
                stop |= o == STOP;
            }
        }
        batch.clear();
        return stop;
    }

    private void fail(Throwable e) {
        if (failure == null) {
            failure = failureReason(e);
            LOG.error("{}", failure, e);
        }
    }

    private void failAll(PriorityQueue<Pending> reorder, PriorityQueue<Waiter> waiters, List<Submitted> tasks,
                                String why) {
        for (Pending p : reorder) {
            p.body.release();
        }
        reorder.clear();
        while (!waiters.isEmpty()) {
            Waiter w = waiters.poll();
            try {
                w.failed().accept(why);
            } catch (RuntimeException e) {
                LOG.warn("a journal failure callback threw: {}", e.toString());
            }
        }
        for (Submitted s : tasks) {
            s.result().completeExceptionally(new JournalFailedException(why, failureCode()));
        }
        tasks.clear();
    }

    private static void complete(Waiter w) {
        try {
            w.done().run();
        } catch (RuntimeException e) {
            LOG.warn("a journal callback threw: {}", e.toString());
        }
    }
}
