package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The write-ahead journal of one block group's replica: segment files
 * {@code segment-<seq>.log} of checksummed records ({@link JournalRecords}) and checkpoint images
 * (an {@link ImageStore}) in the group's own directory. Operations are queued to the datanode's
 * shared {@link JournalWriter}, which writes and forces them in batches (group commit) and then
 * reports them durable.
 *
 * <p>Segments: every segment starts with a head record holding the hard state, sync state and
 * checkpoint as they were when it began, so replay can start at any segment whose older entries are
 * no longer needed. A segment ends after a checkpoint record (which is forced first) or once it
 * passes the size limit. Older segments are deleted once a later checkpoint's {@code compactTo}
 * covers every entry that existed when a newer segment began; images other than the latest
 * checkpoint's are deleted once its record is durable.
 *
 * <p>Failure: an I/O error while writing or forcing (a full or read-only disk) fails the journal:
 * nothing more is acknowledged, the listener hears the reason once, and every later append returns
 * {@link Admission#FAILED} at once. Operations that were not acknowledged may or may not be in the
 * files; recovery sorts that out. A writer thread that dies fails every journal it serves the same
 * way, with a reason naming its cause ({@link JournalWriter#death()}).
 *
 * <p>Threads: {@link #open} runs recovery on the caller's thread; after that the files, the state
 * mirror and the staging buffer belong to the writer thread, and {@link #append} may be called from
 * any thread (ops of one group in issue order).
 */
public final class GroupJournal extends JournalBase {
    private static final Logger LOG = LoggerFactory.getLogger(GroupJournal.class);

    /** Default size at which a segment ends: 64 MiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
    private static final int STAGING_BYTES = 64 << 10;

    private final Path dir;
    private final ImageStore images;
    private final JournalWriter writer;
    private final long segmentBytes;

    // Writer-thread state (the opening thread until the journal is registered).
    private final JournalState state;
    private final List<JournalRecovery.Segment> segments;
    private final CRC32C crc = new CRC32C();
    private ByteBuf staging = Unpooled.directBuffer(STAGING_BYTES);
    private FileChannel channel;
    private long segmentSize;
    private long nextImageId;

    /** A checkpoint of the replica's own state whose image is saved in the background, then recorded. */
    record Deferred(DiskOp.SaveCheckpoint op, ChunkedImage image, long imageId) {
    }

    // Background image saves (guarded by `deferred`'s monitor, this journal's lock for them).
    private final Object deferredLock = new Object();
    /** The newest own-state checkpoint waiting for its image to be saved, or null. */
    private Deferred queuedImage;
    /** The checkpoint whose image the saver is writing, or null. */
    private Deferred savingImage;
    /** The image saved or being saved and not yet recorded (0 when none): kept when others are deleted. */
    private volatile long unrecordedImageId;
    /**
     * An image file other than the recorded checkpoint's (0 when none), kept for the next save to
     * rewrite in place ({@link ImageStore#saveChanged}), and the number of the capture it holds
     * ({@link ChunkedImage#epoch}, 0 when not a capture of this process).
     */
    private long baseImageId;
    private long baseEpoch;
    /** The capture number of the recorded checkpoint's image (0 when not a capture of this process). */
    private long recordedEpoch;
    /** Set when the journal closes: a save under way stops, later ones are not begun. */
    private volatile boolean closing;

    private volatile String failure;
    private boolean failureReported;
    /** Whether the writer's current batch holds records of this journal. */
    boolean inBatch;

    private GroupJournal(long groupId, Path dir, ImageStore images, JournalWriter writer, long segmentBytes,
                         JournalState state, List<JournalRecovery.Segment> segments, long nextImageId) {
        super(groupId, state.snapshot());
        this.dir = dir;
        this.images = images;
        this.writer = writer;
        this.segmentBytes = segmentBytes;
        this.state = state;
        this.segments = segments;
        this.nextImageId = nextImageId;
    }

    /** The directory of group {@code groupId}'s journal under a datanode's journal root. */
    public static Path directory(Path root, long groupId) {
        return root.resolve("group-" + groupId);
    }

    /**
     * Opens (recovering) or creates the journal in {@code dir} with images in a {@link FileImageStore}
     * there and segments of {@link #DEFAULT_SEGMENT_BYTES}.
     */
    public static GroupJournal open(long groupId, Path dir, PersistentState ifNew, JournalWriter writer)
            throws IOException {
        Files.createDirectories(dir);
        return open(groupId, dir, ifNew, writer, new FileImageStore(dir), DEFAULT_SEGMENT_BYTES);
    }

    /**
     * Opens the journal in {@code dir} like {@link #open(long, Path, PersistentState, JournalWriter)};
     * but one whose durable state is lost (its latest checkpoint image is damaged), which would keep
     * the group from being hosted here at all, has its files moved aside, into
     * {@code damaged-<millis>/} in the same directory for a post-mortem, and starts again empty as a
     * {@link PersistentState#wiped() wiped} replica: it does not vote until its leader has brought it
     * up to date, so the group loses nothing its other members hold.
     */
    public static GroupJournal openOrWipe(long groupId, Path dir, PersistentState ifNew, JournalWriter writer)
            throws IOException {
        try {
            return open(groupId, dir, ifNew, writer);
        } catch (JournalLostException e) {
            Path aside = dir.resolve("damaged-" + System.currentTimeMillis());
            Files.createDirectories(aside);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "{segment-,image-}*")) {
                for (Path f : files) {
                    Files.move(f, aside.resolve(f.getFileName()));
                }
            }
            Segments.forceDirectory(dir);
            LOG.error("Block group {}: {}; its journal files were moved to {} and the replica starts again as a "
                    + "wiped one, catching up from its group (delete that directory once it is no longer needed)",
                    groupId, e.getMessage(), aside);
            return open(groupId, dir, PersistentState.wiped(), writer);
        }
    }

    /**
     * Opens the journal in {@code dir}: replays its segments ({@link JournalRecovery}) or, when there are
     * none, starts from {@code ifNew}; then begins a fresh segment. A journal that cannot write its first
     * segment is returned in the failed state (its recovered state is still valid).
     *
     * @throws IOException when the files cannot be read, a damaged tail cannot be cut, or the latest
     *                     checkpoint image is unreadable
     */
    public static GroupJournal open(long groupId, Path dir, PersistentState ifNew, JournalWriter writer,
                                    ImageStore images, long segmentBytes) throws IOException {
        Files.createDirectories(dir);
        JournalRecovery r = JournalRecovery.run(dir, images);
        JournalState state = r.state;
        if (state == null) {
            state = new JournalState(ifNew);
            state.voter &= !r.lostAcknowledged;
        }
        GroupJournal j = new GroupJournal(groupId, dir, images, writer, segmentBytes, state, r.segments,
                r.maxImageId + 1);
        try {
            if (r.state == null && state.image != null) {
                j.state.imageId = j.nextImageId++;
                images.save(j.state.imageId, state.image);
            }
            j.roll();
            images.retainOnly(state.imageId);
        } catch (IOException e) {
            writer.report(j, e);
        }
        writer.register(j);
        LOG.info("journal {}: opened at term {} with {} log entries, checkpoint {}, {} segment(s){}", dir,
                state.currentTerm, state.entries.size(), state.meta.index(), j.segments.size(),
                j.failure == null ? "" : "; failed: " + j.failure);
        return j;
    }

    @Override
    public Admission append(DiskOp op) {
        return failure != null ? Admission.FAILED : writer.offer(this, op);
    }

    /** Why the journal failed; a journal whose writer thread died fails with the writer's reason. */
    @Override
    public String failure() {
        String f = failure;
        return f != null ? f : writer.death();
    }

    /** Segment files currently kept (for tests and metrics). */
    public int segmentCount() {
        return writer.call(this, () -> segments.size());
    }

    Path dir() {
        return dir;
    }

    /** Whether an own-state checkpoint waits for its image to be saved or recorded (for tests). */
    public boolean checkpointPending() {
        synchronized (deferredLock) {
            return queuedImage != null || unrecordedImageId != 0;
        }
    }

    /**
     * Writes what is queued, then closes the files; later appends return {@link Admission#FAILED}. A
     * checkpoint image being saved in the background is abandoned (its checkpoint was never recorded)
     * and close returns once the save stopped, so the directory may be deleted then.
     */
    @Override
    public void close() {
        closing = true;
        synchronized (deferredLock) {
            queuedImage = null;
            boolean interrupted = false;
            while (savingImage != null) {
                try {
                    deferredLock.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        closeQueued();
    }

    private void closeQueued() {
        writer.call(this, () -> {
            if (failure == null) {
                failure = "journal " + dir + " is closed";
                failureReported = true;
            }
            closeFiles();
            writer.unregister(this);
            return null;
        });
    }

    // ---------------------------------------------------------------- writer thread

    /**
     * Encodes {@code op} into the staging buffer; a checkpoint also writes its image and ends the segment.
     *
     * <p>A checkpoint of the replica's own state ({@link ChunkedImage#ownState}) is different: saving
     * a region's image takes a while (a 256 MiB region is a quarter of a second of disk), and doing it
     * here stalled every group's writes on this datanode. Its image is saved by the writer's image
     * thread instead and its record written once the image is durable ({@link #recordDeferred}); the
     * operation itself counts as done at once. That keeps the contract of {@link DiskOp}: until the
     * record is durable, the journal still holds the previous checkpoint and every entry since, from
     * which replay rebuilds the very state the checkpoint describes (a crash meanwhile loses nothing
     * but the compaction). A checkpoint received from another member is saved and recorded here, in
     * order: the entries below it are in no journal on this datanode.
     */
    void stage(DiskOp op) throws IOException {
        if (!(op instanceof DiskOp.SaveCheckpoint c)) {
            JournalRecords.writeOp(staging, op, 0, crc);
            state.apply(op, 0);
            return;
        }
        long imageId = 0;
        boolean newer = state.isNewer(c.checkpoint().meta());
        if (newer && c.checkpoint().image() instanceof ChunkedImage own && own.ownState()) {
            defer(new Deferred(c, own, nextImageId++));
            return;
        }
        if (newer && c.checkpoint().image() != null) {
            imageId = nextImageId++;
            images.save(imageId, c.checkpoint().image());
        }
        record(c, imageId, 0);
    }

    /**
     * Writes and forces a checkpoint's record, deletes images no longer needed and ends the segment.
     * The image the checkpoint replaces stays, as the base the next save rewrites.
     */
    private void record(DiskOp.SaveCheckpoint c, long imageId, long epoch) throws IOException {
        boolean newer = state.isNewer(c.checkpoint().meta());
        long previous = state.imageId;
        JournalRecords.writeOp(staging, c, imageId, crc);
        state.apply(c, imageId);
        current().maxCompactTo = Math.max(current().maxCompactTo, c.compactTo());
        flush();
        if (newer) {
            // Under the lock: the image thread may be starting a save, which renames the base file to
            // the new image's temporary name; it does so only after naming the new image here.
            synchronized (deferredLock) {
                if (imageId != 0 && previous != 0 && previous != imageId) {
                    baseImageId = previous;
                    baseEpoch = recordedEpoch;
                }
                recordedEpoch = imageId == 0 ? 0 : epoch;
                images.retainOnly(state.imageId, unrecordedImageId, baseImageId);
            }
        }
        roll();
    }

    /** Hands an own-state checkpoint to the image thread; a newer one replaces one not yet begun. */
    private void defer(Deferred d) {
        boolean idle;
        synchronized (deferredLock) {
            idle = queuedImage == null && unrecordedImageId == 0;
            queuedImage = d;
        }
        if (idle) {
            writer.saveImage(this);
        }
    }

    /**
     * On the writer's image thread: saves the image of the newest deferred checkpoint, then asks the
     * writer thread to record it; the next save begins once that record is written. A capture a
     * restore has overtaken ({@link ChunkedImage#current}), or a journal closing, is abandoned; a save
     * that fails (a full disk) fails the journal.
     */
    void saveDeferred() {
        Deferred d;
        long from;
        long fromEpoch;
        synchronized (deferredLock) {
            d = queuedImage;
            queuedImage = null;
            if (d == null || closing || failure != null) {
                return;
            }
            savingImage = d;
            unrecordedImageId = d.imageId();
            from = baseImageId;
            fromEpoch = baseEpoch;
            baseImageId = 0; // rewritten into the new image, or gone
        }
        Throwable failed = null;
        boolean saved = false;
        try {
            BitSet changed = from == 0 ? null : d.image().changedSince(fromEpoch);
            if (changed == null) {
                images.save(d.imageId(), new Abandonable(d.image()));
            } else {
                images.saveChanged(from, d.imageId(), new Abandonable(d.image()), changed);
            }
            saved = d.image().current();
        } catch (Abandoned e) {
            LOG.debug("journal {}: image {} abandoned: {}", dir, d.imageId(), e.getMessage());
        } catch (Throwable e) {
            failed = e;
        } finally {
            synchronized (deferredLock) {
                savingImage = null;
                deferredLock.notifyAll();
            }
        }
        Throwable cause = failed;
        if (saved) {
            writer.submit(this, () -> recordDeferred(d));
            return;
        }
        if (cause instanceof Error error) {
            // As if the writer thread had hit it (a heap OutOfMemoryError): the writer dies with it and
            // fails every journal, naming it, rather than leaving this group without checkpoints.
            writer.submit(this, () -> {
                throw error;
            });
        } else if (cause != null && !closing) {
            writer.submit(this, () -> writer.report(this, (Exception) cause));
        }
        saveNextDeferred();
    }

    /** On the writer thread: records a deferred checkpoint whose image is durable, unless a newer one was. */
    private void recordDeferred(Deferred d) {
        try {
            if (failure == null && d.image().current() && state.isNewer(d.op().checkpoint().meta())) {
                record(d.op(), d.imageId(), d.image().epoch());
            } else {
                synchronized (deferredLock) {
                    // Saved but not recorded: a base for the next save all the same.
                    baseImageId = d.imageId();
                    baseEpoch = d.image().epoch();
                }
            }
        } catch (IOException | RuntimeException e) {
            writer.report(this, e);
        } finally {
            saveNextDeferred();
        }
    }

    /** The deferred image is recorded or dropped: begins saving the next one, if one is waiting. */
    private void saveNextDeferred() {
        boolean more;
        synchronized (deferredLock) {
            unrecordedImageId = 0;
            more = queuedImage != null;
        }
        if (more) {
            writer.saveImage(this);
        }
    }

    /** The image of a deferred checkpoint, read until its journal closes or a restore overtakes it. */
    private final class Abandonable implements ChunkedImage {
        private final ChunkedImage image;

        Abandonable(ChunkedImage image) {
            this.image = image;
        }

        @Override
        public long sizeBytes() {
            return image.sizeBytes();
        }

        @Override
        public ByteBuf slice(long offset, int length) {
            if (closing || failure != null) {
                throw new Abandoned("the journal closed");
            }
            if (!image.current()) {
                throw new Abandoned("a checkpoint from another member was restored over it");
            }
            return image.slice(offset, length);
        }
    }

    /** Stops a background save that no longer matters. */
    private static final class Abandoned extends RuntimeException {
        Abandoned(String why) {
            super(why, null, false, false);
        }
    }

    /** Writes the staged records to the current segment and forces them; nothing to do when none are staged. */
    void flush() throws IOException {
        if (writeStaged()) {
            force();
        }
    }

    /** Writes the staged records to the current segment; returns whether there were any. */
    boolean writeStaged() throws IOException {
        if (!staging.isReadable()) {
            return false;
        }
        ByteBuffer nio = staging.nioBuffer();
        while (nio.hasRemaining()) {
            segmentSize += channel.write(nio);
        }
        staging.clear();
        return true;
    }

    /** Forces the current segment's data (fdatasync: the file size, but not its times, is forced with it). */
    void force() throws IOException {
        channel.force(false);
        writer.countForce();
    }

    /** After a batch is durable: ends the segment when it has grown past the limit. */
    void afterBatch() throws IOException {
        if (segmentSize >= segmentBytes) {
            roll();
        }
        if (staging.capacity() > STAGING_BYTES * 4) {
            staging.release(); // a burst grew it: give the memory back
            staging = Unpooled.directBuffer(STAGING_BYTES);
        }
    }

    private JournalRecovery.Segment current() {
        return segments.get(segments.size() - 1);
    }

    /** Begins a new segment whose head describes the current state, then deletes segments no longer needed. */
    private void roll() throws IOException {
        long seq = segments.isEmpty() ? 1 : current().seq + 1;
        Path path = Segments.file(dir, seq);
        FileChannel next = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            ByteBuf head = Unpooled.buffer();
            JournalRecords.writeHead(head, state, crc);
            ByteBuffer nio = head.nioBuffer();
            long size = 0;
            while (nio.hasRemaining()) {
                size += next.write(nio);
            }
            next.force(true);
            Segments.forceDirectory(dir);
            if (channel != null) {
                channel.close();
            }
            channel = next;
            segmentSize = size;
        } catch (IOException e) {
            next.close();
            throw e;
        }
        segments.add(new JournalRecovery.Segment(seq, path, state.logMax()));
        compact();
    }

    /**
     * Deletes the segments before the newest segment {@code k} whose older entries are all covered: every
     * entry that existed when {@code k} began is at or below the compactTo of a checkpoint recorded since.
     */
    private void compact() throws IOException {
        int keepFrom = 0;
        long coveredTo = 0;
        for (int k = segments.size() - 1; k > 0; k--) {
            coveredTo = Math.max(coveredTo, segments.get(k).maxCompactTo);
            if (segments.get(k).logMax <= coveredTo) {
                keepFrom = k;
                break;
            }
        }
        for (int i = 0; i < keepFrom; i++) {
            Files.deleteIfExists(segments.get(0).path);
            segments.remove(0);
        }
        if (keepFrom > 0) {
            Segments.forceDirectory(dir);
        }
    }

    boolean failed() {
        return failure != null;
    }

    /** Enters the failed state; returns the reason when the listener has not heard it yet. */
    synchronized String fail(IOException e) {
        if (failure == null) {
            failure = Segments.reason(dir, e);
            if (writer.death() != null) {
                // The writer logged the cause with its stack once; one line per group is enough.
                LOG.error("{}; group {} acknowledges no more operations", failure, groupId());
            } else {
                LOG.error("{}; group {} acknowledges no more operations", failure, groupId(), e);
            }
        }
        staging.clear();
        if (failureReported) {
            return null;
        }
        failureReported = true;
        return failure;
    }

    void closeFiles() {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            LOG.warn("journal {}: closing the segment failed", dir, e);
        }
        channel = null;
        if (staging.refCnt() > 0) {
            staging.release();
        }
    }
}
