package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Reads a namespace journal back at start-up: every segment in order, every record checked (frame,
 * CRC32C, contiguous sequence numbers), the records above a checkpoint handed to a {@link Replayer}.
 *
 * <p>Zeros from some offset to the end of a segment are the space the journal wrote ahead of its
 * records ({@code NamespaceJournal.PREALLOCATE}): the segment's records end there (the last
 * segment is trimmed to them, quietly); a missing record still shows as a gap at the next segment.
 * A record that fails a check in the <em>last</em> segment is a torn tail: the namenode died
 * while that batch was being written, so none of it was acknowledged. The segment is cut there
 * (truncated and forced) and the cut is logged and reported. The same failure in an earlier segment
 * cannot come from a crash (a segment is complete before the next one starts): it is corruption, and
 * recovery refuses with the file and offset, since replaying around a hole would build a namespace
 * that never existed.
 */
final class JournalRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(JournalRecovery.class);

    /**
     * What recovery found.
     *
     * @param lastSeq  the last valid record's sequence number (0 for an empty journal)
     * @param replayed records handed to the replayer
     * @param cutBytes bytes of a torn tail cut off the last segment
     * @param segments segments read
     */
    record Result(long lastSeq, long replayed, long cutBytes, int segments) {
    }

    private JournalRecovery() {
    }

    /**
     * Reads the journal in {@code dir}, replaying the records above {@code afterSeq}.
     *
     * @throws JournalCorruptException a damaged record before the last segment, a segment of
     *                                 another namespace or format, or a gap in the sequence
     */
    static Result recover(Path dir, UUID namespaceId, long afterSeq, JournalReplayer replayer) throws IOException {
        return scan(dir, namespaceId, afterSeq, Long.MAX_VALUE, replayer);
    }

    /**
     * Reads the records {@code afterSeq + 1 .. upToSeq} of a journal in use, for a checkpoint: only
     * segments closed before (they hold those records whole), never cutting anything; a damaged record
     * or a missing one is corruption.
     *
     * @return how many records were replayed
     */
    static long read(Path dir, UUID namespaceId, long afterSeq, long upToSeq, JournalReplayer replayer)
            throws IOException {
        Result r = scan(dir, namespaceId, afterSeq, upToSeq, replayer);
        if (r.lastSeq() < upToSeq) {
            throw new JournalCorruptException("namespace journal " + dir + " ends at record " + r.lastSeq()
                    + ", but records up to " + upToSeq + " were written");
        }
        return r.replayed();
    }

    /** Recovery ({@code upToSeq} unbounded: the last segment's torn tail is cut) or a bounded read. */
    private static Result scan(Path dir, UUID namespaceId, long afterSeq, long upToSeq, JournalReplayer replayer)
            throws IOException {
        boolean bounded = upToSeq != Long.MAX_VALUE;
        List<Long> firsts = JournalFormat.segments(dir);
        if (bounded) {
            firsts = firsts.stream().filter(f -> f <= upToSeq).toList();
        }
        long expected = firsts.isEmpty() ? 1 : firsts.get(0);
        if (expected > afterSeq + 1) {
            throw new JournalCorruptException("namespace journal " + dir + " starts at record " + expected
                    + ", but the checkpoint covers records up to " + afterSeq + " only: records "
                    + (afterSeq + 1) + ".." + (expected - 1) + " are missing");
        }
        long replayed = 0;
        long cut = 0;
        for (int i = 0; i < firsts.size() && expected <= upToSeq; i++) {
            boolean last = i == firsts.size() - 1 && !bounded;
            Path file = JournalFormat.segment(dir, firsts.get(i));
            if (firsts.get(i) != expected) {
                throw new JournalCorruptException("namespace journal segment " + file + " should start at record "
                        + expected + ": records are missing before it");
            }
            byte[] bytes = Files.readAllBytes(file);
            ByteBuf buf = Unpooled.wrappedBuffer(bytes);
            String bad = header(buf, namespaceId);
            if (bad != null && !(last && bytes.length < JournalFormat.SEGMENT_HEADER)) {
                throw new JournalCorruptException("namespace journal segment " + file + " " + bad);
            }
            int offset = JournalFormat.SEGMENT_HEADER;
            while (bad == null && offset < bytes.length && expected <= upToSeq) {
                bad = frame(buf, offset, expected);
                if (bad != null) {
                    break;
                }
                long seq = buf.getLong(offset + JournalFormat.FRAME_HEAD);
                if (replayFrame(buf, offset, afterSeq, replayer)) {
                    replayed++;
                }
                expected = seq + 1;
                offset += JournalFormat.FRAME_HEAD + buf.getInt(offset);
            }
            if (bad != null && zeros(bytes, offset)) {
                // Zeros written ahead of the records (NamespaceJournal.PREALLOCATE): the segment ends here.
                if (last && offset < bytes.length) {
                    truncate(file, offset);
                }
                bad = null;
            }
            if (bad != null) {
                if (!last) {
                    throw new JournalCorruptException("namespace journal segment " + file + " is damaged at byte "
                            + offset + " (" + bad + ") although later segments follow it; refusing to replay "
                            + "around it");
                }
                cut = bytes.length - Math.min(offset, bytes.length);
                truncate(file, Math.min(offset, bytes.length));
                LOG.warn("namespace journal segment {}: cut {} bytes of a torn tail at byte {} ({}); the records "
                        + "there were never acknowledged", file, cut, offset, bad);
            }
        }
        return new Result(expected - 1, replayed, cut, firsts.size());
    }

    /**
     * Replays the records of {@code frames}, journal records back to back as a namenode group
     * replicates them ({@link SequencedLog#replayFrames}), whose sequence numbers lie above
     * {@code afterSeq}; the others the namespace holds already. Each record must follow the one
     * before it, and the first may not leave a gap after {@code afterSeq}.
     *
     * @param frames the records, from index 0 to the buffer's capacity
     * @return the last record's sequence number, replayed or not ({@code afterSeq} when there is none)
     * @throws JournalCorruptException when a record is damaged, cut short or out of order
     */
    static long replayFrames(ByteBuf frames, long afterSeq, JournalReplayer replayer) throws IOException {
        int offset = 0;
        long last = afterSeq;
        long expected = -1;
        while (offset < frames.capacity()) {
            if (expected < 0 && frames.capacity() - offset >= JournalFormat.FRAME_HEAD + 8) {
                expected = frames.getLong(offset + JournalFormat.FRAME_HEAD);
                if (expected > afterSeq + 1) {
                    throw new JournalCorruptException("replicated namespace records start at record " + expected
                            + " where " + (afterSeq + 1) + " was expected");
                }
            }
            String bad = frame(frames, offset, expected);
            if (bad != null) {
                throw new JournalCorruptException("replicated namespace records: " + bad + " at byte " + offset);
            }
            long seq = frames.getLong(offset + JournalFormat.FRAME_HEAD);
            replayFrame(frames, offset, afterSeq, replayer);
            last = seq;
            expected = seq + 1;
            offset += JournalFormat.FRAME_HEAD + frames.getInt(offset);
        }
        return last;
    }

    /** Replays the checked record at {@code offset} if it lies above {@code afterSeq}; true when it did. */
    private static boolean replayFrame(ByteBuf buf, int offset, long afterSeq, JournalReplayer replayer)
            throws IOException {
        long seq = buf.getLong(offset + JournalFormat.FRAME_HEAD);
        if (seq <= afterSeq) {
            return false;
        }
        int length = buf.getInt(offset);
        int type = buf.getUnsignedByte(offset + JournalFormat.FRAME_HEAD + 8);
        int bodyAt = offset + JournalFormat.FRAME_HEAD + JournalFormat.RECORD_HEAD;
        replayer.replay(seq, type, buf.slice(bodyAt, length - JournalFormat.RECORD_HEAD));
        return true;
    }

    /** Null when the segment header is right, else what is wrong. */
    private static String header(ByteBuf buf, UUID namespaceId) {
        if (buf.readableBytes() < JournalFormat.SEGMENT_HEADER) {
            return "is shorter than its header";
        }
        if (buf.getInt(0) != JournalFormat.SEGMENT_MAGIC) {
            return "is not a namespace journal segment";
        }
        int version = buf.getUnsignedByte(4);
        if (version != JournalFormat.SEGMENT_VERSION) {
            return "was written in segment format version " + version + "; this namenode reads version "
                    + JournalFormat.SEGMENT_VERSION;
        }
        UUID id = new UUID(buf.getLong(5), buf.getLong(13));
        if (!id.equals(namespaceId)) {
            return "belongs to namespace " + id + ", not to this journal's " + namespaceId;
        }
        return null;
    }

    /** Null when a whole, intact record of sequence number {@code expected} starts at {@code offset}. */
    private static String frame(ByteBuf buf, int offset, long expected) {
        int left = buf.capacity() - offset;
        if (left < JournalFormat.FRAME_HEAD + JournalFormat.RECORD_HEAD) {
            return "a record head cut short";
        }
        int length = buf.getInt(offset);
        if (length < JournalFormat.RECORD_HEAD || length > JournalFormat.RECORD_HEAD + JournalFormat.MAX_BODY) {
            return "a record length of " + length;
        }
        if (left - JournalFormat.FRAME_HEAD < length) {
            return "a record cut short";
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.nioBuffer(offset + JournalFormat.FRAME_HEAD, length));
        if ((int) crc.getValue() != buf.getInt(offset + 4)) {
            return "a record failing its checksum";
        }
        long seq = buf.getLong(offset + JournalFormat.FRAME_HEAD);
        if (seq != expected) {
            return "record " + seq + " where " + expected + " was expected";
        }
        return null;
    }

    /** True when every byte of {@code bytes} from {@code offset} on is zero (or there is none). */
    static boolean zeros(byte[] bytes, int offset) {
        for (int i = offset; i < bytes.length; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
            ch.force(true);
        }
    }

    /** A header for a new segment of namespace {@code namespaceId}. */
    static ByteBuffer segmentHeader(UUID namespaceId) {
        ByteBuffer b = ByteBuffer.allocate(JournalFormat.SEGMENT_HEADER);
        b.putInt(JournalFormat.SEGMENT_MAGIC).put((byte) JournalFormat.SEGMENT_VERSION)
                .putLong(namespaceId.getMostSignificantBits()).putLong(namespaceId.getLeastSignificantBits());
        return b.flip();
    }
}
