package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Wire;
import io.tarn.replication.PersistentState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Rebuilds a group's state from its segment files. The first surviving segment's head gives the base
 * state; every later record is replayed in order. The first record that is incomplete, fails its
 * checksum or does not decode ends the replay: the file is cut there and later segments are deleted.
 * In the last segment that is a torn tail (records never reported durable). In an earlier segment it
 * means records that were reported durable are gone (each segment is forced before the next one
 * begins), so the replica comes back as a non-voter, as after a disk loss, and the loss is logged as
 * an error.
 */
final class JournalRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(JournalRecovery.class);

    /** What the journal keeps about one segment file. */
    static final class Segment {
        final long seq;
        final Path path;
        /** Highest log index when the segment began; older segments only matter for entries up to here. */
        final long logMax;
        /** Highest compactTo of the checkpoint records in this segment, 0 when none. */
        long maxCompactTo;

        Segment(long seq, Path path, long logMax) {
            this.seq = seq;
            this.path = path;
            this.logMax = logMax;
        }
    }

    /** The recovered state, or {@code null} when no segment holds a valid head. */
    JournalState state;
    final List<Segment> segments = new ArrayList<>();
    /** Whether records that had been reported durable were lost (corruption before the last segment). */
    boolean lostAcknowledged;
    /** Highest image id any record names. */
    long maxImageId;

    private final CRC32C crc = new CRC32C();

    private JournalRecovery() {
    }

    /** Scans {@code dir}, repairs its tail and loads the latest checkpoint image. */
    static JournalRecovery run(Path dir, ImageStore images) throws IOException {
        JournalRecovery r = new JournalRecovery();
        List<Long> seqs = Segments.list(dir);
        for (int i = 0; i < seqs.size(); i++) {
            if (!r.scan(dir, seqs.get(i), seqs.subList(i + 1, seqs.size()))) {
                break;
            }
        }
        if (r.state != null && r.lostAcknowledged) {
            r.state.voter = false;
        }
        if (r.state != null && r.state.imageId != 0) {
            try {
                r.state.image = images.load(r.state.imageId);
            } catch (IOException e) {
                throw new JournalLostException("journal " + dir + ": the latest checkpoint's image " + r.state.imageId
                        + " cannot be read (" + e.getMessage() + "); this replica's durable state is lost: restart"
                        + " the group on this datanode as a wiped replica", e);
            }
        }
        return r;
    }

    /** Replays one segment; returns false when it ended the replay (damage found). */
    private boolean scan(Path dir, long seq, List<Long> later) throws IOException {
        Path path = Segments.file(dir, seq);
        byte[] data = Files.readAllBytes(path);
        ByteBuf buf = Unpooled.wrappedBuffer(data);
        Segment seg = null;
        int pos = 0;
        String problem = null;
        while (pos < data.length && problem == null) {
            int left = data.length - pos;
            if (left <= JournalRecords.FRAME) {
                problem = "an incomplete record header";
                break;
            }
            int length = buf.getInt(pos);
            if (length < 1 || length > left - JournalRecords.FRAME) {
                problem = "a record length of " + length + " with " + (left - JournalRecords.FRAME) + " bytes left";
                break;
            }
            if (JournalRecords.checksum(buf, pos + JournalRecords.FRAME, length, crc) != buf.getInt(pos + 4)) {
                problem = "a checksum mismatch";
                break;
            }
            ByteBuf body = buf.slice(pos + JournalRecords.FRAME, length);
            try {
                int type = body.readUnsignedByte();
                if (seg == null) {
                    if (type != JournalRecords.HEAD) {
                        problem = "a segment without a head record";
                        break;
                    }
                    seg = head(body, seq, path);
                } else {
                    problem = replay(type, body, seg);
                }
            } catch (MalformedMessageException | IllegalArgumentException e) {
                problem = "an undecodable record (" + e.getMessage() + ")";
            }
            if (problem == null) {
                pos += JournalRecords.FRAME + length;
            }
        }
        if (seg == null && problem == null) {
            problem = "an empty segment";
        }
        if (problem == null) {
            segments.add(seg);
            return true;
        }
        repair(dir, path, seg, pos, data.length, problem, later);
        if (seg != null) {
            segments.add(seg);
        }
        return false;
    }

    private Segment head(ByteBuf body, long seq, Path path) {
        long term = ReplicationCodec.readNonNegative(body, "currentTerm");
        int votedFor = Wire.readInt(body);
        boolean voter = Wire.readBoolean(body);
        long syncedTerm = ReplicationCodec.readNonNegative(body, "syncedTerm");
        long syncEnd = ReplicationCodec.readNonNegative(body, "syncEnd");
        long logMax = ReplicationCodec.readNonNegative(body, "logMax");
        long imageId = ReplicationCodec.readNonNegative(body, "imageId");
        var meta = ReplicationCodec.readMeta(body);
        Wire.end(body);
        if (state == null) {
            JournalState s = new JournalState(PersistentState.initialVoter());
            s.hardState(term, votedFor, voter);
            s.syncedTerm = syncedTerm;
            s.syncEnd = syncEnd;
            s.meta = meta;
            s.imageId = imageId;
            state = s;
        }
        maxImageId = Math.max(maxImageId, imageId);
        return new Segment(seq, path, logMax);
    }

    /** Applies one decoded record; returns a problem description or {@code null}. */
    private String replay(int type, ByteBuf body, Segment seg) {
        switch (type) {
            case JournalRecords.HARD_STATE: {
                long term = ReplicationCodec.readNonNegative(body, "currentTerm");
                int votedFor = Wire.readInt(body);
                boolean voter = Wire.readBoolean(body);
                Wire.end(body);
                state.hardState(term, votedFor, voter);
                return null;
            }
            case JournalRecords.ENTRIES: {
                var entries = ReplicationCodec.readEntries(body);
                Wire.end(body);
                state.put(entries);
                return null;
            }
            case JournalRecords.SYNC: {
                long syncedTerm = ReplicationCodec.readNonNegative(body, "syncedTerm");
                long base = ReplicationCodec.readNonNegative(body, "baseIndex");
                long syncEnd = ReplicationCodec.readNonNegative(body, "syncEnd");
                var entries = ReplicationCodec.readEntries(body);
                Wire.end(body);
                state.sync(syncedTerm, base, syncEnd, entries);
                return null;
            }
            case JournalRecords.CHECKPOINT: {
                JournalRecords.CheckpointRecord c = JournalRecords.CheckpointRecord.read(body);
                Wire.end(body);
                if (state.isNewer(c.meta()) && c.imageId() == 0 && c.meta().index() != 0) {
                    return "a checkpoint record without an image";
                }
                state.checkpoint(c.meta(), null, c.imageId(), c.compactTo());
                seg.maxCompactTo = Math.max(seg.maxCompactTo, c.compactTo());
                maxImageId = Math.max(maxImageId, c.imageId());
                return null;
            }
            default:
                return "an unknown record type " + type;
        }
    }

    private void repair(Path dir, Path path, Segment seg, int pos, int size, String problem, List<Long> later)
            throws IOException {
        if (seg == null) {
            Files.delete(path);
        } else {
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
                ch.truncate(pos);
                ch.force(true);
            }
        }
        for (long seq : later) {
            Files.delete(Segments.file(dir, seq));
        }
        Segments.forceDirectory(dir);
        String what = "journal " + dir + ": " + path.getFileName() + " has " + problem + " at byte " + pos + " of "
                + size + "; ";
        if (later.isEmpty()) {
            LOG.warn("{}cut the {} bytes from there (a torn write: nothing there had been reported durable)", what,
                    size - pos);
        } else {
            lostAcknowledged = true;
            LOG.error("{}cut the {} bytes from there and deleted the {} later segment(s): operations already reported "
                    + "durable are lost (disk damage), so this replica restarts as a non-voter and rejoins like a "
                    + "replica whose disk was replaced", what, size - pos, later.size());
        }
    }
}
