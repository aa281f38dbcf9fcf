package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Wire;
import io.tarn.replication.BlockRange;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.Message;
import io.tarn.replication.SessionSnapshot;
import io.tarn.replication.StateImage;
import io.tarn.replication.WriteCommand;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Binary form of the replication core's messages and values, written straight into and read straight
 * out of Netty buffers. Field order is the order of the record components; sizes in brackets, all
 * integers big-endian.
 * <pre>
 * Group header (host-written, 16 bytes): groupId[i64] membershipVersion[i64]      both &gt;= 0
 * Message frame: version[u8] = 1, type[u8], body; the body runs to the end of the buffer
 *   common prefix P: from[i32] to[i32] term[i64]
 *   1 RequestVote      P syncedTerm[i64] lastIndex[i64] contiguousIndex[i64] leaderTransfer[bool]
 *   2 VoteReply        P granted[bool] voter[bool] syncedTerm[i64] logStart[i64] n[i32] LogEntry*n
 *   3 Sync             P baseIndex[i64] syncEnd[i64] n[i32] LogEntry*n commitPrefix[i64]
 *   4 SyncReply        P success[bool] voter[bool] finalPrefix[i64]
 *   5 Append           P n[i32] LogEntry*n commitPrefix[i64] m[i32] index[i64]*m probe[i64] promote[bool]
 *   6 AppendReply      P synced[bool] voter[bool] n[i32] index[i64]*n finalPrefix[i64] probe[i64]
 *   7 InstallCheckpoint      P CheckpointMeta image (written by the {@link ImageCodec})
 *   8 InstallCheckpointReply P voter[bool] finalPrefix[i64]
 *   9 TimeoutNow       P
 *  10 PreVote          P syncedTerm[i64] lastIndex[i64] contiguousIndex[i64]   (term: the proposed one)
 *  11 PreVoteReply     P proposedTerm[i64] granted[bool]
 * LogEntry:     term[i64] index[i64] kind[u8] (0: no-op, then BlockRange; 1: write, then WriteCommand;
 *               2: configuration, then Members) n[u8] BlockRange*n (look-behind, nearest first)
 * Members:      m[u8] memberId[i32]*m   (ascending)
 * WriteCommand: clientId[i64] sequence[i64] firstUnacked[i64] BlockRange length[i32] crc32c[i32] data[length]
 *               (the payload's layout is the host's: a block write is the block's generation, then
 *               the range's bytes)
 * BlockRange:   first[i64] count[i32]   (bytes relative to the group's region; first + count must not overflow)
 * CheckpointMeta: index[i64] n[i32] appliedAbove[i64]*n s[i32] Session*s Members (none: the founders)
 * Session:      clientId[i64] floor[i64] k[i32] appliedSeq[i64]*k
 * </pre>
 * Replica ids, terms, indices, prefixes and probes are non-negative; bool is one byte, 0 or 1.
 *
 * <p>Encoding allocates nothing beyond what the buffer needs (lists are walked by index). Decoding
 * validates every field, bounds every count by the bytes left (so a hostile count never allocates
 * more than the message's size), checks payload checksums, applies the records' own validation, and
 * reports every failure as {@link MalformedMessageException}, never as another exception. An instance
 * is immutable and may be shared between threads.
 */
public final class ReplicationCodec {

    /** Format version written in every frame; a frame with another version is rejected. */
    public static final int FORMAT_VERSION = 1;
    /** Bytes of the group header. */
    public static final int HEADER_LENGTH = 16;

    public static final int REQUEST_VOTE = 1;
    public static final int VOTE_REPLY = 2;
    public static final int SYNC = 3;
    public static final int SYNC_REPLY = 4;
    public static final int APPEND = 5;
    public static final int APPEND_REPLY = 6;
    public static final int INSTALL_CHECKPOINT = 7;
    public static final int INSTALL_CHECKPOINT_REPLY = 8;
    public static final int TIMEOUT_NOW = 9;
    public static final int PRE_VOTE = 10;
    public static final int PRE_VOTE_REPLY = 11;

    private static final int NOOP = 0;
    private static final int WRITE = 1;
    private static final int CONFIGURATION = 2;
    private static final int RANGE_BYTES = 12;
    /** Smallest encoded entry: a configuration of one member with no look-behind. */
    private static final int MIN_ENTRY_BYTES = 8 + 8 + 1 + 1 + Integer.BYTES + 1;
    private static final int MIN_SESSION_BYTES = 8 + 8 + 4;

    private final ImageCodec images;

    /** A codec that writes and reads checkpoint images with {@code images}. */
    public ReplicationCodec(ImageCodec images) {
        this.images = images;
    }

    // ---------------------------------------------------------------- group header

    /** Writes the group header that precedes each message frame. */
    public static void writeHeader(ByteBuf buf, long groupId, long membershipVersion) {
        buf.writeLong(groupId);
        buf.writeLong(membershipVersion);
    }

    /**
     * A reusable view of a decoded group header (one per event-loop thread), so reading it allocates
     * nothing.
     */
    public static final class Header {
        private long groupId;
        private long membershipVersion;

        /** Reads and validates a header at the reader index, consuming it. */
        public Header read(ByteBuf buf) {
            long g = nonNegative(Wire.readLong(buf), "group id");
            long v = nonNegative(Wire.readLong(buf), "membership version");
            groupId = g;
            membershipVersion = v;
            return this;
        }

        public long groupId() {
            return groupId;
        }

        public long membershipVersion() {
            return membershipVersion;
        }
    }

    // ---------------------------------------------------------------- messages

    /** Appends one message frame (version, type, body) to {@code buf}. */
    public void encode(ByteBuf buf, Message m) {
        buf.writeByte(FORMAT_VERSION);
        if (m instanceof Message.RequestVote v) {
            prefix(buf, REQUEST_VOTE, m);
            buf.writeLong(v.syncedTerm());
            buf.writeLong(v.lastIndex());
            buf.writeLong(v.contiguousIndex());
            Wire.writeBoolean(buf, v.leaderTransfer());
        } else if (m instanceof Message.VoteReply r) {
            prefix(buf, VOTE_REPLY, m);
            Wire.writeBoolean(buf, r.granted());
            Wire.writeBoolean(buf, r.voter());
            buf.writeLong(r.syncedTerm());
            buf.writeLong(r.logStart());
            writeEntries(buf, r.entries());
        } else if (m instanceof Message.Sync s) {
            prefix(buf, SYNC, m);
            buf.writeLong(s.baseIndex());
            buf.writeLong(s.syncEnd());
            writeEntries(buf, s.entries());
            buf.writeLong(s.commitPrefix());
        } else if (m instanceof Message.SyncReply r) {
            prefix(buf, SYNC_REPLY, m);
            Wire.writeBoolean(buf, r.success());
            Wire.writeBoolean(buf, r.voter());
            buf.writeLong(r.finalPrefix());
        } else if (m instanceof Message.Append a) {
            prefix(buf, APPEND, m);
            writeEntries(buf, a.entries());
            buf.writeLong(a.commitPrefix());
            writeLongs(buf, a.committedAbove());
            buf.writeLong(a.probe());
            Wire.writeBoolean(buf, a.promote());
        } else if (m instanceof Message.AppendReply r) {
            prefix(buf, APPEND_REPLY, m);
            Wire.writeBoolean(buf, r.synced());
            Wire.writeBoolean(buf, r.voter());
            writeLongs(buf, r.acked());
            buf.writeLong(r.finalPrefix());
            buf.writeLong(r.probe());
        } else if (m instanceof Message.InstallCheckpoint c) {
            prefix(buf, INSTALL_CHECKPOINT, m);
            writeMeta(buf, c.meta());
            images.encode(c.image(), buf);
        } else if (m instanceof Message.InstallCheckpointReply r) {
            prefix(buf, INSTALL_CHECKPOINT_REPLY, m);
            Wire.writeBoolean(buf, r.voter());
            buf.writeLong(r.finalPrefix());
        } else if (m instanceof Message.TimeoutNow) {
            prefix(buf, TIMEOUT_NOW, m);
        } else if (m instanceof Message.PreVote v) {
            prefix(buf, PRE_VOTE, m);
            buf.writeLong(v.syncedTerm());
            buf.writeLong(v.lastIndex());
            buf.writeLong(v.contiguousIndex());
        } else if (m instanceof Message.PreVoteReply r) {
            prefix(buf, PRE_VOTE_REPLY, m);
            buf.writeLong(r.proposedTerm());
            Wire.writeBoolean(buf, r.granted());
        } else {
            throw new IllegalArgumentException("unknown message " + m);
        }
    }

    private static void prefix(ByteBuf buf, int type, Message m) {
        buf.writeByte(type);
        buf.writeInt(m.from());
        buf.writeInt(m.to());
        buf.writeLong(m.term());
    }

    /**
     * Reads one message frame that runs to the end of {@code buf}.
     *
     * @throws MalformedMessageException on any invalid, truncated or trailing byte
     */
    public Message decode(ByteBuf buf) {
        try {
            Message m = decodeFrame(buf);
            Wire.end(buf);
            return m;
        } catch (IllegalArgumentException e) {
            throw invalid(e);
        }
    }

    private Message decodeFrame(ByteBuf buf) {
        int version = Wire.readUnsignedByte(buf);
        if (version != FORMAT_VERSION) {
            throw new MalformedMessageException("replication format version " + version + " is not supported (this "
                    + "datanode reads version " + FORMAT_VERSION + ")");
        }
        int type = Wire.readUnsignedByte(buf);
        if (type < REQUEST_VOTE || type > PRE_VOTE_REPLY) {
            throw new MalformedMessageException("unknown replication message type " + type);
        }
        int from = replicaId(buf, "from");
        int to = replicaId(buf, "to");
        long term = readNonNegative(buf, "term");
        switch (type) {
            case REQUEST_VOTE:
                return new Message.RequestVote(from, to, term, readNonNegative(buf, "syncedTerm"),
                        readNonNegative(buf, "lastIndex"), readNonNegative(buf, "contiguousIndex"),
                        Wire.readBoolean(buf));
            case VOTE_REPLY: {
                boolean granted = Wire.readBoolean(buf);
                boolean voter = Wire.readBoolean(buf);
                long syncedTerm = readNonNegative(buf, "syncedTerm");
                long logStart = readNonNegative(buf, "logStart");
                return new Message.VoteReply(from, to, term, granted, voter, syncedTerm, logStart, readEntries(buf));
            }
            case SYNC: {
                long base = readNonNegative(buf, "baseIndex");
                long syncEnd = readNonNegative(buf, "syncEnd");
                List<LogEntry> entries = readEntries(buf);
                return new Message.Sync(from, to, term, base, syncEnd, entries, readNonNegative(buf, "commitPrefix"));
            }
            case SYNC_REPLY:
                return new Message.SyncReply(from, to, term, Wire.readBoolean(buf), Wire.readBoolean(buf),
                        readNonNegative(buf, "finalPrefix"));
            case APPEND: {
                List<LogEntry> entries = readEntries(buf);
                long commitPrefix = readNonNegative(buf, "commitPrefix");
                List<Long> committedAbove = readLongs(buf, "committedAbove");
                long probe = readNonNegative(buf, "probe");
                return new Message.Append(from, to, term, entries, commitPrefix, committedAbove, probe,
                        Wire.readBoolean(buf));
            }
            case APPEND_REPLY: {
                boolean synced = Wire.readBoolean(buf);
                boolean voter = Wire.readBoolean(buf);
                List<Long> acked = readLongs(buf, "acked");
                long finalPrefix = readNonNegative(buf, "finalPrefix");
                return new Message.AppendReply(from, to, term, synced, voter, acked, finalPrefix,
                        readNonNegative(buf, "probe"));
            }
            case INSTALL_CHECKPOINT: {
                CheckpointMeta meta = readMeta(buf);
                StateImage image = images.decode(buf);
                return new Message.InstallCheckpoint(from, to, term, meta, image);
            }
            case INSTALL_CHECKPOINT_REPLY:
                return new Message.InstallCheckpointReply(from, to, term, Wire.readBoolean(buf),
                        readNonNegative(buf, "finalPrefix"));
            case PRE_VOTE:
                return new Message.PreVote(from, to, term, readNonNegative(buf, "syncedTerm"),
                        readNonNegative(buf, "lastIndex"), readNonNegative(buf, "contiguousIndex"));
            case PRE_VOTE_REPLY:
                return new Message.PreVoteReply(from, to, term, readNonNegative(buf, "proposedTerm"),
                        Wire.readBoolean(buf));
            default:
                return new Message.TimeoutNow(from, to, term);
        }
    }

    // ---------------------------------------------------------------- values

    /** Appends a block range. */
    public static void writeRange(ByteBuf buf, BlockRange r) {
        buf.writeLong(r.first());
        buf.writeInt(r.count());
    }

    /** Reads a block range; rejects negative fields and an end past {@link Long#MAX_VALUE}. */
    public static BlockRange readRange(ByteBuf buf) {
        long first = Wire.readLong(buf);
        int count = Wire.readInt(buf);
        if (first < 0 || count < 0 || first > Long.MAX_VALUE - count) {
            throw new MalformedMessageException("invalid block range " + first + "+" + count);
        }
        return count == 0 && first == 0 ? BlockRange.EMPTY : new BlockRange(first, count);
    }

    /** Appends a write command; its payload must be a {@link BytesPayload}. */
    public static void writeCommand(ByteBuf buf, WriteCommand c) {
        if (!(c.payload() instanceof BytesPayload p)) {
            throw new IllegalArgumentException("a datanode write carries its bytes as a BytesPayload; got "
                    + c.payload() + " for range " + c.range());
        }
        buf.writeLong(c.clientId());
        buf.writeLong(c.sequence());
        buf.writeLong(c.firstUnacked());
        writeRange(buf, c.range());
        buf.writeInt(p.length());
        buf.writeInt(p.crc32c());
        p.writeTo(buf);
    }

    /** Reads a write command, verifying the payload's checksum. */
    public static WriteCommand readCommand(ByteBuf buf) {
        try {
            long clientId = Wire.readLong(buf);
            long sequence = Wire.readLong(buf);
            long firstUnacked = Wire.readLong(buf);
            BlockRange range = readRange(buf);
            int length = Wire.readInt(buf);
            int crc = Wire.readInt(buf);
            if (length < 0) {
                throw new MalformedMessageException("negative payload length " + length);
            }
            Wire.need(buf, length);
            byte[] data = new byte[length];
            buf.readBytes(data);
            int actual = BytesPayload.crc32c(data);
            if (actual != crc) {
                throw new MalformedMessageException("write payload checksum mismatch for client " + clientId + " seq "
                        + sequence + ": carried " + Integer.toHexString(crc) + ", computed "
                        + Integer.toHexString(actual));
            }
            return new WriteCommand(clientId, sequence, firstUnacked, range, new BytesPayload(data, crc));
        } catch (IllegalArgumentException e) {
            throw invalid(e);
        }
    }

    /** Appends a log entry. */
    public static void writeEntry(ByteBuf buf, LogEntry e) {
        buf.writeLong(e.term());
        buf.writeLong(e.index());
        if (e.isConfiguration()) {
            buf.writeByte(CONFIGURATION);
            writeMembers(buf, e.members());
        } else if (e.command() == null) {
            buf.writeByte(NOOP);
            writeRange(buf, e.range());
        } else {
            buf.writeByte(WRITE);
            writeCommand(buf, e.command());
        }
        List<BlockRange> lookBehind = e.lookBehind();
        if (lookBehind.size() > 255) {
            throw new IllegalArgumentException("look-behind of " + lookBehind.size() + " ranges exceeds 255");
        }
        buf.writeByte(lookBehind.size());
        for (int i = 0; i < lookBehind.size(); i++) {
            writeRange(buf, lookBehind.get(i));
        }
    }

    /** Reads a log entry. */
    public static LogEntry readEntry(ByteBuf buf) {
        try {
            long term = Wire.readLong(buf);
            long index = Wire.readLong(buf);
            int kind = Wire.readUnsignedByte(buf);
            BlockRange range;
            WriteCommand command;
            List<Integer> members = List.of();
            if (kind == NOOP) {
                range = readRange(buf);
                command = null;
            } else if (kind == CONFIGURATION) {
                members = readMembers(buf);
                if (members.isEmpty()) {
                    throw new MalformedMessageException("a configuration entry names no member");
                }
                range = BlockRange.EMPTY;
                command = null;
            } else if (kind == WRITE) {
                command = readCommand(buf);
                range = command.range();
            } else {
                throw new MalformedMessageException("unknown log entry kind " + kind);
            }
            int n = Wire.readUnsignedByte(buf);
            Wire.need(buf, n * RANGE_BYTES);
            List<BlockRange> lookBehind = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                lookBehind.add(readRange(buf));
            }
            return new LogEntry(term, index, range, lookBehind, command, members);
        } catch (IllegalArgumentException e) {
            throw invalid(e);
        }
    }

    /** Appends a count and the entries. */
    public static void writeEntries(ByteBuf buf, List<LogEntry> entries) {
        buf.writeInt(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            writeEntry(buf, entries.get(i));
        }
    }

    /** Reads a count and that many entries. */
    public static List<LogEntry> readEntries(ByteBuf buf) {
        int n = count(buf, MIN_ENTRY_BYTES, "entry");
        List<LogEntry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(readEntry(buf));
        }
        return entries;
    }

    /** Appends a checkpoint description with its session table. */
    public static void writeMeta(ByteBuf buf, CheckpointMeta meta) {
        buf.writeLong(meta.index());
        writeLongs(buf, meta.appliedAbove());
        buf.writeInt(meta.sessions().size());
        for (Map.Entry<Long, SessionSnapshot> s : meta.sessions().entrySet()) {
            buf.writeLong(s.getKey());
            buf.writeLong(s.getValue().floor());
            writeLongs(buf, s.getValue().appliedSeqs());
        }
        writeMembers(buf, meta.members());
    }

    private static void writeMembers(ByteBuf buf, List<Integer> members) {
        if (members.size() > 255) {
            throw new IllegalArgumentException(members.size() + " members exceed 255");
        }
        buf.writeByte(members.size());
        for (int i = 0; i < members.size(); i++) {
            buf.writeInt(members.get(i));
        }
    }

    private static List<Integer> readMembers(ByteBuf buf) {
        int m = Wire.readUnsignedByte(buf);
        Wire.need(buf, m * Integer.BYTES);
        List<Integer> members = new ArrayList<>(m);
        int previous = -1;
        for (int i = 0; i < m; i++) {
            int id = buf.readInt();
            if (id <= previous) {
                throw new MalformedMessageException("member ids must be non-negative and ascending: " + id
                        + " after " + previous);
            }
            members.add(id);
            previous = id;
        }
        return members;
    }

    /** Reads a checkpoint description; a client listed twice is malformed. */
    public static CheckpointMeta readMeta(ByteBuf buf) {
        try {
            long index = readNonNegative(buf, "checkpoint index");
            List<Long> appliedAbove = readLongs(buf, "appliedAbove");
            int n = count(buf, MIN_SESSION_BYTES, "session");
            Map<Long, SessionSnapshot> sessions = new HashMap<>();
            for (int i = 0; i < n; i++) {
                long clientId = Wire.readLong(buf);
                long floor = readNonNegative(buf, "session floor");
                SessionSnapshot s = new SessionSnapshot(floor, readLongs(buf, "appliedSeqs"));
                if (sessions.put(clientId, s) != null) {
                    throw new MalformedMessageException("client " + clientId + " appears twice in a checkpoint");
                }
            }
            return new CheckpointMeta(index, appliedAbove, sessions, readMembers(buf));
        } catch (IllegalArgumentException e) {
            throw invalid(e);
        }
    }

    private static void writeLongs(ByteBuf buf, List<Long> values) {
        buf.writeInt(values.size());
        for (int i = 0; i < values.size(); i++) {
            buf.writeLong(values.get(i));
        }
    }

    private static List<Long> readLongs(ByteBuf buf, String field) {
        int n = count(buf, 8, field);
        List<Long> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(readNonNegative(buf, field));
        }
        return values;
    }

    // ---------------------------------------------------------------- validation helpers

    /** Reads a count whose elements take at least {@code minBytes} each, so it cannot exceed what is left. */
    static int count(ByteBuf buf, int minBytes, String what) {
        int n = Wire.readInt(buf);
        if (n < 0 || n > buf.readableBytes() / minBytes) {
            throw new MalformedMessageException(what + " count " + n + " does not fit in the "
                    + buf.readableBytes() + " bytes left");
        }
        return n;
    }

    static long readNonNegative(ByteBuf buf, String field) {
        return nonNegative(Wire.readLong(buf), field);
    }

    private static long nonNegative(long v, String field) {
        if (v < 0) {
            throw new MalformedMessageException(field + " is negative: " + v);
        }
        return v;
    }

    private static int replicaId(ByteBuf buf, String field) {
        return Wire.readInt(buf, 0, Integer.MAX_VALUE, field + " replica id");
    }

    private static MalformedMessageException invalid(IllegalArgumentException e) {
        return new MalformedMessageException("invalid replication value: " + e.getMessage());
    }
}
