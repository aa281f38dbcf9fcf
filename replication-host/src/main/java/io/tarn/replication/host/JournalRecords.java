package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.tarn.common.protocol.Wire;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.DiskOp;

import java.util.zip.CRC32C;

/**
 * Record layout of a group journal's segment files. Every record is
 * {@code length[i32] crc32c[i32] type[u8] body}, where {@code length} counts type and body and the
 * CRC32C covers them. Bodies (values in {@link ReplicationCodec}'s encoding):
 * <pre>
 * 1 HEAD        currentTerm[i64] votedFor[i32] voter[bool] syncedTerm[i64] syncEnd[i64]
 *               logMax[i64] imageId[i64] CheckpointMeta          (first record of every segment)
 * 2 HARD_STATE  currentTerm[i64] votedFor[i32] voter[bool]
 * 3 ENTRIES     n[i32] LogEntry*n
 * 4 SYNC        syncedTerm[i64] baseIndex[i64] syncEnd[i64] n[i32] LogEntry*n
 * 5 CHECKPOINT  compactTo[i64] imageId[i64] CheckpointMeta
 * </pre>
 * {@code logMax} is the highest log index when the segment began (0: empty log); {@code imageId}
 * names the checkpoint's image in the {@link ImageStore} (0: the initial checkpoint, no image).
 */
final class JournalRecords {
    static final int HEAD = 1;
    static final int HARD_STATE = 2;
    static final int ENTRIES = 3;
    static final int SYNC = 4;
    static final int CHECKPOINT = 5;
    /** Bytes before the type: length and checksum. */
    static final int FRAME = 8;

    private JournalRecords() {
    }

    /** Appends the head record describing {@code s}. */
    static void writeHead(ByteBuf out, JournalState s, CRC32C crc) {
        int start = begin(out, HEAD);
        out.writeLong(s.currentTerm);
        out.writeInt(s.votedFor);
        Wire.writeBoolean(out, s.voter);
        out.writeLong(s.syncedTerm);
        out.writeLong(s.syncEnd);
        out.writeLong(s.logMax());
        out.writeLong(s.imageId);
        ReplicationCodec.writeMeta(out, s.meta);
        end(out, start, crc);
    }

    /** Appends the record of {@code op}; {@code imageId} names a checkpoint's image (ignored otherwise). */
    static void writeOp(ByteBuf out, DiskOp op, long imageId, CRC32C crc) {
        int start;
        if (op instanceof DiskOp.PersistHardState h) {
            start = begin(out, HARD_STATE);
            out.writeLong(h.currentTerm());
            out.writeInt(h.votedFor());
            Wire.writeBoolean(out, h.voter());
        } else if (op instanceof DiskOp.PersistEntries e) {
            start = begin(out, ENTRIES);
            ReplicationCodec.writeEntries(out, e.entries());
        } else if (op instanceof DiskOp.PersistSync s) {
            start = begin(out, SYNC);
            out.writeLong(s.syncedTerm());
            out.writeLong(s.baseIndex());
            out.writeLong(s.syncEnd());
            ReplicationCodec.writeEntries(out, s.entries());
        } else if (op instanceof DiskOp.SaveCheckpoint c) {
            start = begin(out, CHECKPOINT);
            out.writeLong(c.compactTo());
            out.writeLong(imageId);
            ReplicationCodec.writeMeta(out, c.checkpoint().meta());
        } else {
            throw new IllegalArgumentException("unknown disk op " + op);
        }
        end(out, start, crc);
    }

    private static int begin(ByteBuf out, int type) {
        int start = out.writerIndex();
        out.writeLong(0); // length and checksum, filled in by end()
        out.writeByte(type);
        return start;
    }

    private static void end(ByteBuf out, int start, CRC32C crc) {
        int length = out.writerIndex() - start - FRAME;
        out.setInt(start, length);
        out.setInt(start + 4, checksum(out, start + FRAME, length, crc));
    }

    /** CRC32C of {@code length} bytes of {@code buf} from {@code index}. */
    static int checksum(ByteBuf buf, int index, int length, CRC32C crc) {
        crc.reset();
        crc.update(buf.nioBuffer(index, length));
        return (int) crc.getValue();
    }

    /** Reads a checkpoint record's fields after its type byte; the caller applies them. */
    record CheckpointRecord(long compactTo, long imageId, CheckpointMeta meta) {
        static CheckpointRecord read(ByteBuf body) {
            long compactTo = ReplicationCodec.readNonNegative(body, "compactTo");
            long imageId = ReplicationCodec.readNonNegative(body, "imageId");
            return new CheckpointRecord(compactTo, imageId, ReplicationCodec.readMeta(body));
        }
    }
}
