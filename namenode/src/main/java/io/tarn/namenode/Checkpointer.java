package io.tarn.namenode;

import io.tarn.namenode.journal.JournalCheckpoint;
import io.tarn.namenode.journal.NamespaceJournal;
import io.tarn.namenode.namespace.NamespaceImage;
import io.tarn.namenode.namespace.NamespaceReplay;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Writes checkpoints of a journaled namespace in the background and deletes the journal segments
 * they cover, so that the journal stays short and a restart replays little.
 *
 * <p>A checkpoint never touches the serving namespace: the journal is rolled (its current segment
 * closed at record B), a blank namespace on this thread loads the newest checkpoint and replays the
 * closed segments up to B, and that namespace, exactly the state after record B, is written out as
 * {@code checkpoint-B.image} ({@link NamespaceImage}). Lookups and mutations go on meanwhile; the
 * cost is this thread's CPU and, while it runs, heap for a second copy of the namespace (as HDFS's
 * secondary namenode needs, here in the same process). Then the segments up to B and older
 * checkpoints are deleted. A crash at any point leaves either the old checkpoint and its segments or
 * the new one: files appear by rename, and segments go only once the checkpoint covering them is
 * durable.
 *
 * <p>Runs when the journal holds {@code tarn.namenode.checkpoint.records} records since the last
 * checkpoint, or {@code tarn.namenode.checkpoint.interval} after it when it holds any.
 */
final class Checkpointer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

    /** The serving namenode, told of each checkpoint (for its status). */
    private final NamenodeService live;
    private final NamespaceJournal journal;
    private final Supplier<NamenodeService> blank;
    private final long intervalMs;
    private final long records;
    private final ScheduledExecutorService thread;
    private volatile long coveredSeq;
    private volatile long coveredAt = System.currentTimeMillis();
    private volatile long lastMillis;
    private volatile long written;

    /**
     * @param blank      makes an empty namespace like the serving one (no journal), to rebuild into
     * @param coveredSeq the record the newest checkpoint on disk covers (0: none)
     */
    Checkpointer(NamenodeService live, NamespaceJournal journal, Supplier<NamenodeService> blank, long intervalMs,
                 long records, long coveredSeq) {
        this.live = live;
        this.journal = journal;
        this.blank = blank;
        this.intervalMs = intervalMs;
        this.records = records;
        this.coveredSeq = coveredSeq;
        if (coveredSeq > 0) {
            live.checkpointed(coveredSeq, coveredAt);
        }
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tarn-namenode-checkpoint");
            t.setDaemon(true);
            return t;
        });
    }

    /** Checks every second whether a checkpoint is due. */
    void start() {
        thread.scheduleWithFixedDelay(this::checkQuietly, 1, 1, TimeUnit.SECONDS);
    }

    private void checkQuietly() {
        try {
            long since = journal.durableSeq() - coveredSeq;
            boolean due = since >= records
                    || since > 0 && intervalMs > 0 && System.currentTimeMillis() - coveredAt >= intervalMs;
            if (due && journal.failure() == null) {
                checkpoint();
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("Checkpoint of namespace journal {} failed; the journal keeps every record, and the next "
                    + "attempt comes within a second", journal.directory(), e);
        }
    }

    /**
     * Writes a checkpoint of every record written so far (on the calling thread, serialized with
     * the background's) and returns the record it covers; when no record came since the last one,
     * returns that one's.
     */
    synchronized long checkpoint() throws IOException {
        long start = System.nanoTime();
        long boundary;
        try {
            boundary = journal.roll().get() - 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while rolling the namespace journal", e);
        } catch (ExecutionException e) {
            throw new IOException("cannot roll namespace journal " + journal.directory() + ": "
                    + e.getCause().getMessage(), e.getCause());
        }
        if (boundary <= coveredSeq) {
            coveredAt = System.currentTimeMillis();
            return coveredSeq;
        }
        Path dir = journal.directory();
        UUID namespaceId = journal.meta().namespaceId();
        NamenodeService shadow = blank.get();
        NamespaceReplay replay = shadow.namespace().replay();
        long from = JournalCheckpoint.load(dir, namespaceId, replay);
        long replayed = journal.readClosed(from, boundary, replay);
        replay.finish();
        Path file = JournalCheckpoint.write(dir, namespaceId, boundary,
                out -> NamespaceImage.write(shadow.namespace(), out));
        int segments;
        try {
            segments = journal.purge(boundary).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while deleting the journal segments checkpoint " + file + " covers", e);
        } catch (ExecutionException e) {
            throw new IOException("cannot delete the segments checkpoint " + file + " covers: "
                    + e.getCause().getMessage(), e.getCause());
        }
        int older = JournalCheckpoint.deleteOlder(dir, boundary);
        coveredSeq = boundary;
        coveredAt = System.currentTimeMillis();
        live.checkpointed(boundary, coveredAt);
        lastMillis = (System.nanoTime() - start) / 1_000_000;
        written++;
        LOG.info("Checkpoint {} of records 1..{} written in {} ms ({} journal record(s) since checkpoint {}; {} files, "
                        + "{} directories); {} segment(s) and {} older checkpoint(s) deleted", file.getFileName(),
                boundary, lastMillis, replayed, from, shadow.namespace().fileCount(),
                shadow.namespace().directoryCount(), segments, older);
        return boundary;
    }

    /** The record the newest checkpoint covers (0: none). */
    long coveredSeq() {
        return coveredSeq;
    }

    /** Checkpoints written since start. */
    long written() {
        return written;
    }

    /** How long the last checkpoint took, in ms. */
    long lastMillis() {
        return lastMillis;
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("The namespace checkpoint thread did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
