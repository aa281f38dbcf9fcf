package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Bodies of the block requests a client sends to a replicated block group (see {@link Frame} for
 * the header). A write goes to the group's leader, which replicates it before answering; a read of
 * a block being written goes to the leader too, which serves it linearizably. (A closed file is
 * read from any member with the ordinary READ_BLOCK, with that member's token.)
 *
 * <pre>
 * GROUP_WRITE req:  GroupAccess, then {@code length} bytes of data       resp: (empty)
 * GROUP_READ  req:  GroupAccess                                          resp: the data, exactly {@code length} bytes
 * GroupAccess (64 bytes, fixed):
 *   groupId[i64] slot[i32] generation[i32] token[i64] tokenStamp[i64] offset[i32] length[i32]
 *   clientId[i64] sequence[i64] firstUnacked[i64]
 *   slot: the block within the group (the same block index on every member);
 *   token: the token the namenode issued for this member's replica of the block, tokenStamp its key id
 *   and expiry (the block reference's);
 *   offset and length address bytes inside the block: 0 &lt;= offset, offset + length &lt;= blockSize;
 *   (clientId, sequence): identifies a write across retries (it is applied at most once); the client
 *   promises never to retry a sequence below firstUnacked (0 &lt; firstUnacked &lt;= sequence);
 *   a read sends firstUnacked = 0 and in sequence its mode: 0 at the leader only (a member that does
 *   not lead answers NOT_LEADER), {@link #READ_AT_ANY_MEMBER} at the member it is sent to.
 * </pre>
 *
 * Errors: NOT_LEADER with a {@code Redirect(member, host:port)} detail naming the leader when the
 * member knows it; UNKNOWN_GROUP while the datanode does not host the group yet (retry);
 * GROUP_UNAVAILABLE when the group cannot commit (no quorum, or the journal failed), naming why;
 * INVALID_TOKEN, STALE_GENERATION, OUT_OF_RANGE as for unreplicated blocks.
 */
public final class GroupProtocol {
    private GroupProtocol() {
    }

    public static final int GROUP_OFFSET = 0;
    public static final int SLOT_OFFSET = 8;
    public static final int GENERATION_OFFSET = 12;
    public static final int TOKEN_OFFSET = 16;
    public static final int STAMP_OFFSET = 24;
    public static final int BLOCK_OFFSET_OFFSET = 32;
    public static final int LENGTH_OFFSET = 36;
    public static final int CLIENT_OFFSET = 40;
    public static final int SEQUENCE_OFFSET = 48;
    public static final int FIRST_UNACKED_OFFSET = 56;
    /** The read mode (in the sequence field of a GROUP_READ) that lets any member serve the read. */
    public static final long READ_AT_ANY_MEMBER = 1;
    /** Bytes of the fixed access part. */
    public static final int ACCESS_LENGTH = 64;

    /** Writes the access part of a GROUP_WRITE or GROUP_READ body. */
    public static void writeAccess(ByteBuf buf, long groupId, int slot, int generation, long token, long tokenStamp,
                                   int offset, int length, long clientId, long sequence, long firstUnacked) {
        buf.writeLong(groupId);
        buf.writeInt(slot);
        buf.writeInt(generation);
        buf.writeLong(token);
        buf.writeLong(tokenStamp);
        buf.writeInt(offset);
        buf.writeInt(length);
        buf.writeLong(clientId);
        buf.writeLong(sequence);
        buf.writeLong(firstUnacked);
    }

    /**
     * A zero-allocation view of the access part at a body's reader index; {@link #wrap} it once per
     * request (one instance per I/O thread suffices).
     */
    public static final class Access extends FixedView {
        /** Points this view at the body; throws when the body is shorter than the access part. */
        public Access wrap(ByteBuf body) {
            point(body, ACCESS_LENGTH);
            return this;
        }

        public long groupId() {
            return buf.getLong(base + GROUP_OFFSET);
        }

        public int slot() {
            return buf.getInt(base + SLOT_OFFSET);
        }

        public int generation() {
            return buf.getInt(base + GENERATION_OFFSET);
        }

        public long token() {
            return buf.getLong(base + TOKEN_OFFSET);
        }

        public long tokenStamp() {
            return buf.getLong(base + STAMP_OFFSET);
        }

        public int offset() {
            return buf.getInt(base + BLOCK_OFFSET_OFFSET);
        }

        public int length() {
            return buf.getInt(base + LENGTH_OFFSET);
        }

        public long clientId() {
            return buf.getLong(base + CLIENT_OFFSET);
        }

        public long sequence() {
            return buf.getLong(base + SEQUENCE_OFFSET);
        }

        public long firstUnacked() {
            return buf.getLong(base + FIRST_UNACKED_OFFSET);
        }

        /** Reader index of the data that follows the access part (GROUP_WRITE). */
        public int dataIndex() {
            return base + ACCESS_LENGTH;
        }
    }
}
