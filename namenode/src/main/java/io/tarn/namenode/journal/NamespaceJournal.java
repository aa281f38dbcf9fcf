package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.io.JournalFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * A namenode's write-ahead journal of namespace mutations, with group commit.
 *
 * <p>A mutation appends its record where it takes effect, under the lock that orders it against
 * conflicting mutations of the same object ({@link #append}: no I/O, no lock of the journal's own;
 * the record gets the next sequence number and joins a lock-free queue). One writer thread takes
 * everything queued as a batch, writes the records in sequence order, forces the segment once, and
 * then runs the callbacks of every record the force made durable ({@link #whenDurable}): many
 * concurrent mutations share one {@code force}, and no I/O thread ever waits for the disk. A
 * mutation is acknowledged from its callback, so an acknowledged mutation is on disk.
 *
 * <p>Sequence numbers are taken with one atomic increment and the record is queued right after, so
 * the queue may briefly hold a record before one with a lower number; the writer writes only the
 * contiguous run and waits for the missing record. Two mutations of one object append under that
 * object's lock, so the journal orders them as memory did, and replaying the journal in sequence
 * order rebuilds the same state.
 *
 * <p>Back-pressure: {@link #full()} says when the records not yet durable reached the capacity; a
 * caller checks it before mutating (a mutation cannot be refused once applied) and answers busy.
 *
 * <p>Failure is final: when a write or force fails (full or read-only disk, I/O error) memory is
 * ahead of disk, so every waiting callback hears the failure, every later append throws
 * {@link JournalFailedException} with the reason, and only a restart on a working disk, which
 * replays what reached the disk, brings mutations back.
 *
 * <p>Files: see {@link JournalFormat} and {@link JournalMeta}; a lock file {@code in_use.lock}
 * keeps a second namenode process off the directory.
 */
public final class NamespaceJournal implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamespaceJournal.class);
    private static final String LOCK_FILE = "in_use.lock";
    /** Encoded bytes written to the file before the batch goes on encoding. */
    private static final int WRITE_CHUNK = 1 << 20;

    /**
     * @param segmentBytes a segment is closed and the next one begun once it holds this many bytes
     * @param capacity     records appended but not yet durable beyond which {@link #full()} holds
     */
    public record Settings(long segmentBytes, int capacity) {
        public static final Settings DEFAULT = new Settings(64L << 20, 65_536);

        public Settings {
            if (segmentBytes < JournalFormat.SEGMENT_HEADER + 64 || capacity < 1) {
                throw new IllegalArgumentException("segment bytes " + segmentBytes + " and capacity " + capacity);
            }
        }
    }

    private static final class Pending {
        final int type;
        final ByteBuf body;
        long seq;

        Pending(int type, ByteBuf body) {
            this.type = type;
            this.body = body;
        }
    }

    private record Waiter(long seq, Runnable done, Consumer<String> failed) {
    }

    private static final Object STOP = new Object();

    private final Path dir;
    private final JournalMeta meta;
    private final Settings settings;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final LinkedTransferQueue<Object> queue = new LinkedTransferQueue<>();
    private final AtomicLong lastAssigned;
    private final AtomicLong notDurable = new AtomicLong();
    private final LongAdder appended = new LongAdder();
    private final Thread writer;
    private volatile long durable;
    private volatile String failure;
    private volatile long forces;
    private volatile long bytesWritten;
    private volatile boolean closed;

    // Writer thread only.
    private FileChannel segment;
    private long segmentFirst;
    private long segmentSize;
    private long written;
    private final ByteBuf out = Unpooled.directBuffer(WRITE_CHUNK + 4096);
    private final CRC32C crc = new CRC32C();

    private NamespaceJournal(Path dir, JournalMeta meta, Settings settings, FileChannel lockChannel, FileLock lock,
                             long lastSeq, String name) throws IOException {
        this.dir = dir;
        this.meta = meta;
        this.settings = settings;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.lastAssigned = new AtomicLong(lastSeq);
        this.durable = lastSeq;
        this.written = lastSeq;
        startSegment();
        this.writer = new Thread(this::run, name);
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * Opens (creating it if needed) the journal in {@code dir} of namenode {@code partition} of
     * {@code partitions}: checks whose it is, replays every record above {@code afterSeq} (what a
     * checkpoint already holds) to {@code replayer} in sequence order, cuts a torn tail, and starts
     * a new segment for the records to come.
     *
     * @throws IOException when the directory is another namenode's or in use by another process,
     *                     when the journal is corrupt ({@link JournalCorruptException}), or when the
     *                     replayer fails
     */
    public static NamespaceJournal open(Path dir, int partition, int partitions, long afterSeq,
                                        JournalReplayer replayer, Settings settings) throws IOException {
        Files.createDirectories(dir);
        FileChannel lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            lockChannel.close();
            throw new IOException("namespace journal " + dir + " is in use by another namenode (it holds "
                    + dir.resolve(LOCK_FILE) + "); give each namenode its own tarn.namenode.journal.dir");
        }
        try {
            JournalMeta meta = JournalMeta.loadOrCreate(dir, partition, partitions);
            JournalRecovery.Result r = JournalRecovery.recover(dir, meta.namespaceId(), afterSeq, replayer);
            LOG.info("namespace journal {}: {} segment(s), {} record(s) replayed above {}, last record {}{}", dir,
                    r.segments(), r.replayed(), afterSeq, r.lastSeq(),
                    r.cutBytes() > 0 ? ", " + r.cutBytes() + " bytes of a torn tail cut" : "");
            return new NamespaceJournal(dir, meta, settings, lockChannel, lock, Math.max(r.lastSeq(), afterSeq),
                    "tarn-namespace-journal-" + partition);
        } catch (IOException | RuntimeException e) {
            lock.release();
            lockChannel.close();
            throw e;
        }
    }

    /**
     * Replays the records {@code afterSeq + 1 .. upToSeq} from the segments closed before (see
     * {@link #roll}) to {@code replayer}, on the calling thread, for a checkpoint; returns how many.
     */
    public long readClosed(long afterSeq, long upToSeq, JournalReplayer replayer) throws IOException {
        return JournalRecovery.read(dir, meta.namespaceId(), afterSeq, upToSeq, replayer);
    }

    /** Whose journal this is. */
    public JournalMeta meta() {
        return meta;
    }

    /** The journal's directory. */
    public Path directory() {
        return dir;
    }

    /**
     * Queues a record of {@code type} (0..255) with {@code body}, which the journal owns from now
     * on (and releases once written); returns its sequence number. Never blocks and does no I/O;
     * call it where the mutation takes effect, under the lock that orders it.
     *
     * @throws JournalFailedException when the journal failed or is closed (the body is released)
     */
    public long append(int type, ByteBuf body) {
        if (type < 0 || type > 255) {
            body.release();
            throw new IllegalArgumentException("record type " + type);
        }
        String why = failure;
        if (why != null || closed) {
            body.release();
            throw new JournalFailedException(why != null ? why : "namespace journal " + dir + " is closed");
        }
        if (body.readableBytes() > JournalFormat.MAX_BODY) {
            int n = body.readableBytes();
            body.release();
            throw new IllegalArgumentException("a journal record of " + n + " bytes; at most "
                    + JournalFormat.MAX_BODY);
        }
        Pending p = new Pending(type, body);
        notDurable.incrementAndGet();
        p.seq = lastAssigned.incrementAndGet();
        queue.offer(p);
        appended.increment();
        return p.seq;
    }

    /**
     * Runs {@code done} once every record up to {@code seq} is on disk, or {@code failed} with the
     * reason if the journal fails first. Either runs at once on the calling thread when already
     * decided, else on the journal's writer thread, so both must be short and must not block
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
        return notDurable.get() >= settings.capacity();
    }

    /** Why the journal takes no records, or null while it works. */
    public String failure() {
        return failure;
    }

    /** The highest sequence number handed out. */
    public long lastSeq() {
        return lastAssigned.get();
    }

    /** Every record up to this sequence number is on disk. */
    public long durableSeq() {
        return durable;
    }

    /** Records appended since the journal was opened. */
    public long appended() {
        return appended.sum();
    }

    /** {@code force} calls since the journal was opened: fewer than records when commits are grouped. */
    public long forces() {
        return forces;
    }

    /** Bytes of records written since the journal was opened. */
    public long bytesWritten() {
        return bytesWritten;
    }

    /**
     * Closes the current segment (once it holds a record) and begins the next; completes with the
     * first sequence number the next segment will hold. A checkpoint taken after this covers every
     * earlier segment, which {@link #purge} can then delete.
     */
    public CompletableFuture<Long> roll() {
        CompletableFuture<Long> result = new CompletableFuture<>();
        submit(() -> {
            if (segmentSize > JournalFormat.SEGMENT_HEADER) {
                startSegment();
            }
            result.complete(segmentFirst);
        }, result);
        return result;
    }

    /**
     * Deletes the segments whose records all lie at or below {@code coveredSeq} (a durable
     * checkpoint holds them), never the segment being written; completes with how many.
     */
    public CompletableFuture<Integer> purge(long coveredSeq) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        submit(() -> {
            List<Long> firsts = JournalFormat.segments(dir);
            int deleted = 0;
            for (int i = 0; i + 1 < firsts.size(); i++) {
                if (firsts.get(i + 1) - 1 <= coveredSeq && firsts.get(i) != segmentFirst) {
                    Files.deleteIfExists(JournalFormat.segment(dir, firsts.get(i)));
                    deleted++;
                }
            }
            if (deleted > 0) {
                JournalFormat.syncDirectory(dir);
            }
            result.complete(deleted);
        }, result);
        return result;
    }

    @FunctionalInterface
    private interface Task {
        void run() throws IOException;
    }

    private record Submitted(Task task, CompletableFuture<?> result) {
    }

    private void submit(Task task, CompletableFuture<?> result) {
        String why = failure;
        if (why != null || closed) {
            result.completeExceptionally(new JournalFailedException(why != null ? why : "journal closed"));
            return;
        }
        queue.offer(new Submitted(task, result));
    }

    /**
     * Writes what was appended before, stops the writer, and fails the callbacks still waiting
     * (records appended concurrently with the close may be lost: close after mutations stopped).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        queue.offer(STOP);
        try {
            writer.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.warn("namespace journal {}: cannot release its lock: {}", dir, e.toString());
        }
    }

    // ---------------------------------------------------------------- writer thread

    private void run() {
        PriorityQueue<Pending> reorder = new PriorityQueue<>(Comparator.comparingLong(p -> p.seq));
        PriorityQueue<Waiter> waiters = new PriorityQueue<>(Comparator.comparingLong(Waiter::seq));
        List<Submitted> tasks = new ArrayList<>();
        List<Object> batch = new ArrayList<>();
        boolean stop = false;
        try {
            while (!stop || (!reorder.isEmpty() && reorder.peek().seq == written + 1 && failure == null)) {
                Object first = queue.poll(stop ? 0 : 100, TimeUnit.MILLISECONDS);
                if (first != null) {
                    batch.add(first);
                    stop |= sort(batch, reorder, waiters, tasks);
                }
                if (failure == null) {
                    try {
                        writeBatch(reorder);
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
            failAll(reorder, waiters, tasks, failure != null ? failure : "namespace journal " + dir + " was closed");
            closeSegment();
            out.release();
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

    /** Encodes the contiguous run of records, writes it and forces the segment once. */
    private void writeBatch(PriorityQueue<Pending> reorder) throws IOException {
        long n = 0;
        while (!reorder.isEmpty() && reorder.peek().seq == written + 1) {
            Pending p = reorder.poll();
            try {
                encode(p);
            } finally {
                p.body.release();
            }
            written = p.seq;
            n++;
            if (segmentSize + out.readableBytes() >= settings.segmentBytes()) {
                n = force(n);
                startSegment();
            } else if (out.readableBytes() >= WRITE_CHUNK) {
                flush();
            }
        }
        force(n);
    }

    /** Writes what is encoded, forces the segment, and marks the {@code n} records written since durable. */
    private long force(long n) throws IOException {
        if (n == 0) {
            return 0;
        }
        flush();
        segment.force(false);
        forces++;
        durable = written;
        notDurable.addAndGet(-n);
        return 0;
    }

    private void encode(Pending p) {
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
    }

    private void flush() throws IOException {
        ByteBuffer b = out.nioBuffer();
        int n = b.remaining();
        while (b.hasRemaining()) {
            segment.write(b);
        }
        segmentSize += n;
        bytesWritten += n;
        out.clear();
    }

    /** Closes the current segment (forced already) and begins one whose first record is {@code written + 1}. */
    private void startSegment() throws IOException {
        closeSegment();
        long first = written + 1;
        Path file = JournalFormat.segment(dir, first);
        // A segment of that name can only be an empty one left by a crash right after it was begun.
        Files.deleteIfExists(file);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            ByteBuffer header = JournalRecovery.segmentHeader(meta.namespaceId());
            while (header.hasRemaining()) {
                ch.write(header);
            }
            ch.force(true);
            JournalFormat.syncDirectory(dir);
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        segment = ch;
        segmentFirst = first;
        segmentSize = JournalFormat.SEGMENT_HEADER;
    }

    private void closeSegment() {
        if (segment != null) {
            try {
                segment.close();
            } catch (IOException e) {
                LOG.warn("namespace journal {}: closing segment {}: {}", dir, segmentFirst, e.toString());
            }
            segment = null;
        }
    }

    private void fail(Throwable e) {
        if (failure == null) {
            String what = e instanceof IOException io ? JournalFiles.reason("namespace journal", dir, io)
                    : "namespace journal " + dir + " failed: " + e;
            failure = what + "; the namenode refuses mutations until it is restarted on a working disk (lookups go "
                    + "on, and the restart replays what reached the disk)";
            LOG.error("{}", failure, e);
        }
    }

    private static void failAll(PriorityQueue<Pending> reorder, PriorityQueue<Waiter> waiters, List<Submitted> tasks,
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
            s.result().completeExceptionally(new JournalFailedException(why));
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
