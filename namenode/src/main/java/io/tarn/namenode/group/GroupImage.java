package io.tarn.namenode.group;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.namenode.journal.EditLog;
import io.tarn.namenode.journal.JournalCorruptException;
import io.tarn.namenode.journal.JournalReplayer;
import io.tarn.namenode.journal.SequencedLog;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.namenode.namespace.NamespaceImage;
import io.tarn.replication.StateImage;
import io.tarn.replication.host.ByteImage;
import io.tarn.replication.host.ChunkedImage;

import java.io.IOException;

/**
 * A namenode group's checkpoint image: the namespace as the records that rebuild it
 * ({@link NamespaceImage}), after the last namespace record it covers.
 * <pre>
 * magic[i32] = 0x544E4749 ("TNGI") version[u8] = 1 coveredSeq[i64] (type[u8] length[i32] body[length])*
 * </pre>
 * The host's image files and transfers checksum every page, so the records carry none of their own.
 */
final class GroupImage {
    static final int MAGIC = 0x544E4749;
    static final int VERSION = 1;
    static final int HEAD = 4 + 1 + 8;
    /** An image of the namespace before any record: nothing to restore. */
    static final ByteImage EMPTY = encode(0, null);

    private GroupImage() {
    }

    /** The image of {@code ns} (null: an empty one), which holds every record up to {@code coveredSeq}. */
    static ByteImage encode(long coveredSeq, Namespace ns) {
        ByteBuf out = Unpooled.buffer(ns == null ? HEAD : 1 << 16);
        try {
            out.writeInt(MAGIC).writeByte(VERSION).writeLong(coveredSeq);
            if (ns != null) {
                NamespaceImage.write(ns, new EditLog() {
                    private long n;

                    @Override
                    public boolean enabled() {
                        return true;
                    }

                    @Override
                    public long append(int type, ByteBuf body) {
                        try {
                            out.writeByte(type).writeInt(body.readableBytes()).writeBytes(body);
                        } finally {
                            body.release();
                        }
                        return ++n;
                    }
                });
            }
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return ByteImage.copyOf(bytes);
        } finally {
            out.release();
        }
    }

    /**
     * Replays the records of {@code image} to {@code replayer} (numbered 1, 2, .. within the image)
     * and returns the last namespace record the image covers.
     *
     * @throws JournalCorruptException when the image is not a namespace image of this version or is cut short
     */
    static long replay(StateImage image, JournalReplayer replayer) throws IOException {
        if (image == null) {
            return 0;
        }
        if (!(image instanceof ChunkedImage chunked)) {
            throw new JournalCorruptException("a namenode group's checkpoint image of " + image.getClass().getName());
        }
        long size = chunked.sizeBytes();
        if (size > Integer.MAX_VALUE) {
            throw new JournalCorruptException("a namenode group's checkpoint image of " + size + " bytes");
        }
        ByteBuf b = Unpooled.buffer((int) size);
        try {
            for (long at = 0; at < size; ) {
                int n = (int) Math.min(ChunkedImage.CHUNK_BYTES, size - at);
                ByteBuf part = chunked.slice(at, n);
                try {
                    b.writeBytes(part);
                } finally {
                    part.release();
                }
                at += n;
            }
            if (b.readableBytes() < HEAD || b.readInt() != MAGIC) {
                throw new JournalCorruptException("not a namenode group's checkpoint image");
            }
            int version = b.readUnsignedByte();
            if (version != VERSION) {
                throw new JournalCorruptException("a namenode group's checkpoint image of format version " + version
                        + "; this namenode reads version " + VERSION);
            }
            long covered = b.readLong();
            long n = 0;
            while (b.isReadable()) {
                if (b.readableBytes() < 5) {
                    throw new JournalCorruptException("a namenode group's checkpoint image cut short at byte "
                            + b.readerIndex());
                }
                int type = b.readUnsignedByte();
                int length = b.readInt();
                if (length < 0 || length > SequencedLog.MAX_BODY || length > b.readableBytes()) {
                    throw new JournalCorruptException("a namenode group's checkpoint image has a record of "
                            + length + " bytes at byte " + (b.readerIndex() - 5));
                }
                replayer.replay(++n, type, b.readSlice(length));
            }
            return covered;
        } finally {
            b.release();
        }
    }
}
