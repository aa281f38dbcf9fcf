package io.tarn.it.mapreduce;

import org.apache.hadoop.examples.terasort.GenSort;

import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigInteger;
import java.util.zip.CRC32;

/**
 * What TeraValidate must report for a sorted TeraGen data set, computed here without any file
 * system: the sum of the CRC-32 of every 100-byte record.
 *
 * <p>TeraGen's rows are a pure function of the row number, produced by {@link GenSort}; the same
 * rows come out of {@code GenSort.outputRecords}, which this class feeds into an in-memory sink that
 * checksums each record with the JDK's CRC32. Since the sum does not depend on order, it must equal
 * the checksum TeraValidate computes over the sorted output: any record lost, duplicated or changed
 * on its way through tarn:// shows up as a different sum. {@code outputRecords} takes Hadoop's
 * package-private {@code Unsigned16}, hence the reflection.
 */
final class TeraGenExpectation {
    static final int RECORD_BYTES = 100;

    private TeraGenExpectation() {
    }

    /** The sum of the CRC-32 of rows {@code 0 .. rows-1} as TeraGen writes them. */
    static BigInteger checksumOfRows(long rows) throws ReflectiveOperationException {
        Class<?> unsigned16 = Class.forName("org.apache.hadoop.examples.terasort.Unsigned16");
        Constructor<?> of = unsigned16.getDeclaredConstructor(long.class);
        of.setAccessible(true);
        Method outputRecords = GenSort.class.getMethod("outputRecords",
                OutputStream.class, boolean.class, unsigned16, unsigned16, unsigned16);
        RecordChecksumSink sink = new RecordChecksumSink();
        try {
            outputRecords.invoke(null, sink, false, of.newInstance(0L), of.newInstance(rows), null);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("GenSort failed", e.getCause());
        }
        if (sink.records != rows || sink.filled != 0) {
            throw new IllegalStateException("GenSort produced " + sink.records + " records and " + sink.filled
                    + " stray bytes, expected " + rows + " records");
        }
        return BigInteger.valueOf(sink.sum);
    }

    /** Sums the CRC-32 of each consecutive 100-byte record written to it. */
    private static final class RecordChecksumSink extends OutputStream {
        private final byte[] record = new byte[RECORD_BYTES];
        private final CRC32 crc = new CRC32();
        private int filled;
        private long records;
        private long sum; // at most 2^32 per record: no overflow below 2^31 records

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            while (len > 0) {
                int n = Math.min(len, RECORD_BYTES - filled);
                System.arraycopy(b, off, record, filled, n);
                filled += n;
                off += n;
                len -= n;
                if (filled == RECORD_BYTES) {
                    crc.reset();
                    crc.update(record, 0, RECORD_BYTES);
                    sum += crc.getValue();
                    records++;
                    filled = 0;
                }
            }
        }
    }
}
