package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Bodies of block data requests served by datanodes (see {@link Frame} for the header).
 *
 * <pre>
 * WRITE_BLOCK req:  BlockAccess, then {@code length} bytes of data        resp: (empty)
 * READ_BLOCK  req:  BlockAccess                                          resp: the data, exactly {@code length} bytes
 * BlockAccess (36 bytes, fixed):
 *   regionId[i32] blockIndex[i32] generation[i32] token[i64] tokenStamp[i64] offset[i32] length[i32]
 *   token and tokenStamp as the namenode issued them in the block reference (BlockTokens);
 *   offset and length address bytes inside the block: 0 &lt;= offset, offset + length &lt;= blockSize.
 * </pre>
 * The access part has a fixed layout so servers read it in place without allocating.
 */
public final class DatanodeProtocol {
    private DatanodeProtocol() {
    }

    public static final int REGION_OFFSET = 0;
    public static final int BLOCK_INDEX_OFFSET = 4;
    public static final int GENERATION_OFFSET = 8;
    public static final int TOKEN_OFFSET = 12;
    public static final int STAMP_OFFSET = 20;
    public static final int BLOCK_OFFSET_OFFSET = 28;
    public static final int LENGTH_OFFSET = 32;
    /** Bytes of the fixed access part. */
    public static final int ACCESS_LENGTH = 36;

    /** Writes the access part of a WRITE_BLOCK or READ_BLOCK body. */
    public static void writeAccess(ByteBuf buf, int regionId, int blockIndex, int generation, long token,
                                   long tokenStamp, int offset, int length) {
        buf.writeInt(regionId);
        buf.writeInt(blockIndex);
        buf.writeInt(generation);
        buf.writeLong(token);
        buf.writeLong(tokenStamp);
        buf.writeInt(offset);
        buf.writeInt(length);
    }

    /**
     * A zero-allocation view of the access part at a body's reader index; {@link #wrap} it once per
     * request (one instance per event-loop thread suffices).
     */
    public static final class Access extends FixedView {
        /** Points this view at the body; throws when the body is shorter than the access part. */
        public Access wrap(ByteBuf body) {
            point(body, ACCESS_LENGTH);
            return this;
        }

        public int regionId() {
            return buf.getInt(base + REGION_OFFSET);
        }

        public int blockIndex() {
            return buf.getInt(base + BLOCK_INDEX_OFFSET);
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

        /** Reader index of the data that follows the access part (WRITE_BLOCK). */
        public int dataIndex() {
            return base + ACCESS_LENGTH;
        }
    }
}
