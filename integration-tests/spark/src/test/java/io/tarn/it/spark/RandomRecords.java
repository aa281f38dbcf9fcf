package io.tarn.it.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * TeraSort-like records: 100 random bytes each, the first 10 being the sort key. A partition's
 * records are a pure function of its index, so Spark executors generate them and the test driver
 * regenerates the same ones to know the expected count and checksum without reading anything back.
 */
final class RandomRecords {
    static final int RECORD_BYTES = 100;
    static final int KEY_BYTES = 10;
    private static final long SEED = 0x7A12_2026L;

    private RandomRecords() {
    }

    /** The records of partition {@code partition} (of {@code perPartition} records). */
    static Iterator<byte[]> partition(int partition, int perPartition) {
        SplittableRandom random = new SplittableRandom(SEED + partition);
        List<byte[]> records = new ArrayList<>(perPartition);
        for (int i = 0; i < perPartition; i++) {
            byte[] r = new byte[RECORD_BYTES];
            random.nextBytes(r);
            records.add(r);
        }
        return records.iterator();
    }

    /** Copies a record's key. */
    static byte[] key(byte[] record) {
        return java.util.Arrays.copyOf(record, KEY_BYTES);
    }

    /** Record count and order-independent checksum (sum of CRC-32s) of a set of records. */
    static final class Digest {
        private final CRC32 crc = new CRC32();
        long records;
        long crcSum;

        void add(byte[] record, int offset) {
            crc.reset();
            crc.update(record, offset, RECORD_BYTES);
            crcSum += crc.getValue();
            records++;
        }

        @Override
        public String toString() {
            return records + " records, CRC-32 sum " + Long.toHexString(crcSum);
        }
    }

    /** Unsigned lexicographic order of keys, as TeraSort sorts; serializable for Spark's range partitioner. */
    static final class KeyOrder implements Comparator<byte[]>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public int compare(byte[] a, byte[] b) {
            return java.util.Arrays.compareUnsigned(a, 0, KEY_BYTES, b, 0, KEY_BYTES);
        }
    }
}
