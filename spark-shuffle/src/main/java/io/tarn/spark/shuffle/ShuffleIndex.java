package io.tarn.spark.shuffle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The index of one map attempt's data file: where each reduce partition starts. Layout (big
 * endian): magic {@code TSHI}, format version 1, the partition count {@code n}, {@code n + 1}
 * offsets (the first 0, the last the data file's length) and a CRC32C of all that. A reader
 * refuses an index that is short, of another format, with offsets that go backwards, or whose
 * checksum does not match: the map's output is then lost, not misread.
 */
final class ShuffleIndex {
    static final int MAGIC = 0x54534849; // "TSHI"
    static final int VERSION = 1;
    private static final int HEADER = 12;

    private ShuffleIndex() {
    }

    /** An index that is not one this build wrote, intact: reading it again cannot help. */
    static final class CorruptIndexException extends IOException {
        private static final long serialVersionUID = 1L;

        CorruptIndexException(String message) {
            super(message);
        }
    }

    /** The index of partitions with these lengths. */
    static byte[] encode(long[] partitionLengths) {
        int n = partitionLengths.length;
        ByteBuffer b = ByteBuffer.allocate(bytes(n));
        b.putInt(MAGIC).putInt(VERSION).putInt(n);
        long offset = 0;
        b.putLong(offset);
        for (long length : partitionLengths) {
            if (length < 0) {
                throw new IllegalArgumentException("a partition of negative length " + length);
            }
            offset += length;
            b.putLong(offset);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /** The size of the index of {@code partitions} partitions. */
    static int bytes(int partitions) {
        return HEADER + 8 * (partitions + 1) + 4;
    }

    /**
     * The {@code n + 1} offsets in {@code index}; {@code what} names it in the error.
     *
     * @throws CorruptIndexException when the index is not one this build wrote, intact
     */
    static long[] decode(byte[] index, String what) throws CorruptIndexException {
        if (index.length < HEADER + 12) {
            throw new CorruptIndexException(what + " is " + index.length + " bytes, too short to be a shuffle index");
        }
        ByteBuffer b = ByteBuffer.wrap(index);
        int magic = b.getInt();
        int version = b.getInt();
        int n = b.getInt();
        if (magic != MAGIC || version != VERSION) {
            throw new CorruptIndexException(what + " is not a shuffle index of format " + VERSION + " (magic "
                    + Integer.toHexString(magic) + ", version " + version + ")");
        }
        if (n < 0 || index.length != bytes(n)) {
            throw new CorruptIndexException(what + " claims " + n + " partitions but is " + index.length + " bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(index, 0, index.length - 4);
        if ((int) crc.getValue() != ByteBuffer.wrap(index, index.length - 4, 4).getInt()) {
            throw new CorruptIndexException(what + " fails its checksum");
        }
        long[] offsets = new long[n + 1];
        for (int i = 0; i <= n; i++) {
            offsets[i] = b.getLong();
            if (i == 0 ? offsets[0] != 0 : offsets[i] < offsets[i - 1]) {
                throw new CorruptIndexException(what + " has offsets out of order at partition " + i);
            }
        }
        return offsets;
    }
}
