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
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * A namenode's write-ahead journal of namespace mutations on its local disk, with group commit
 * ({@link SequencedLog}): the writer thread writes each contiguous run of records to the current
 * segment and forces it once.
 *
 * <p>Failure is final: when a write or force fails (full or read-only disk, I/O error) memory is
 * ahead of disk, so every waiting callback hears the failure, every later append throws
 * {@link JournalFailedException} with the reason, and only a restart on a working disk, which
 * replays what reached the disk, brings mutations back.
 *
 * <p>Files: see {@link JournalFormat} and {@link JournalMeta}; a lock file {@code in_use.lock}
 * keeps a second namenode process off the directory.
 */
public final class NamespaceJournal extends SequencedLog {
    private static final Logger LOG = LoggerFactory.getLogger(NamespaceJournal.class);
    private static final String LOCK_FILE = "in_use.lock";
    /** Encoded bytes written to the file before the batch goes on encoding. */
    private static final int WRITE_CHUNK = 1 << 20;
    /**
     * Bytes of zeros a segment is extended by ahead of its records. Records then land in blocks the
     * file already has, below its size, so a force writes data only: a force that also grows the
     * file has to commit the file system's metadata too, which on ext4 cost a one-at-a-time change
     * several times the force of a file written in place.
     */
    static final int PREALLOCATE = 4 << 20;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 << 10);

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

    private final Path dir;
    private final JournalMeta meta;
    private final Settings settings;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private volatile long forces;
    private volatile long bytesWritten;

    // Writer thread only.
    private FileChannel segment;
    private long segmentFirst;
    private long segmentSize;
    /** The segment file's length: its records, then zeros written ahead ({@link #PREALLOCATE}). */
    private long segmentAllocated;
    /** The disk had no room for zeros ahead in this segment. */
    private boolean preallocationRefused;
    private final ByteBuf out = Unpooled.directBuffer(WRITE_CHUNK + 4096);

    private NamespaceJournal(Path dir, JournalMeta meta, Settings settings, FileChannel lockChannel, FileLock lock,
                             long lastSeq, String name) throws IOException {
        super("namespace journal " + dir, lastSeq, settings.capacity());
        this.dir = dir;
        this.meta = meta;
        this.settings = settings;
        this.lockChannel = lockChannel;
        this.lock = lock;
        startSegment();
        startWriter(name);
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

    @Override
    protected void closed() {
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.warn("namespace journal {}: cannot release its lock: {}", dir, e.toString());
        }
    }

    // ---------------------------------------------------------------- writer thread

    /** Encodes the contiguous run of records, writes it and forces the segment once. */
    @Override
    protected void writeRun(PriorityQueue<Pending> reorder) throws IOException {
        long n = 0;
        for (Pending p = next(reorder); p != null; p = next(reorder)) {
            encode(p, out);
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

    @Override
    protected void writerStopped() {
        closeSegment();
        out.release();
    }

    /** Writes what is encoded, forces the segment, and marks the {@code n} records written since durable. */
    private long force(long n) throws IOException {
        if (n == 0) {
            return 0;
        }
        flush();
        segment.force(false);
        forces++;
        durableUpTo(n);
        return 0;
    }

    private void flush() throws IOException {
        ByteBuffer b = out.nioBuffer();
        int n = b.remaining();
        if (segmentSize + n > segmentAllocated) {
            preallocate(segmentSize + n);
        }
        long at = segmentSize;
        while (b.hasRemaining()) {
            at += segment.write(b, at);
        }
        segmentSize += n;
        bytesWritten += n;
        out.clear();
    }

    /**
     * Writes zeros from the end of the file to at least {@code upTo}, {@link #PREALLOCATE} bytes
     * ahead. When the disk has no room for them, the zeros written are taken back and this segment
     * grows with its records instead (the records' own write then says whether they fit).
     */
    private void preallocate(long upTo) throws IOException {
        if (preallocationRefused) {
            return;
        }
        long target = Math.max(upTo, segmentAllocated + PREALLOCATE);
        long at = segmentAllocated;
        try {
            while (at < target) {
                ByteBuffer zeros = ZEROS.duplicate();
                zeros.limit((int) Math.min(zeros.capacity(), target - at));
                at += segment.write(zeros, at);
            }
        } catch (IOException e) {
            preallocationRefused = true;
            segment.truncate(segmentAllocated);
            LOG.debug("namespace journal {}: no room to write {} bytes ahead in segment {} ({}); it grows with its "
                    + "records", dir, target - segmentAllocated, segmentFirst, e.toString());
            return;
        }
        segmentAllocated = at;
    }

    /** Closes the current segment (forced already) and begins one whose first record is {@code written + 1}. */
    private void startSegment() throws IOException {
        closeSegment();
        long first = written() + 1;
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
        segmentAllocated = JournalFormat.SEGMENT_HEADER;
        preallocationRefused = false;
    }

    private void closeSegment() {
        if (segment != null) {
            try {
                if (segmentAllocated > segmentSize) {
                    // The zeros written ahead go; a crash before this leaves them, which a restart reads as
                    // the segment's end (JournalRecovery).
                    segment.truncate(segmentSize);
                }
                segment.close();
            } catch (IOException e) {
                LOG.warn("namespace journal {}: closing segment {}: {}", dir, segmentFirst, e.toString());
            }
            segment = null;
        }
    }

    @Override
    protected String failureReason(Throwable e) {
        String what = e instanceof IOException io ? JournalFiles.reason("namespace journal", dir, io)
                : "namespace journal " + dir + " failed: " + e;
        return what + "; the namenode refuses mutations until it is restarted on a working disk (lookups go "
                + "on, and the restart replays what reached the disk)";
    }
}
