package io.tarn.spark.shuffle;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.shuffle.api.ShuffleMapOutputWriter;
import org.apache.spark.shuffle.api.ShufflePartitionWriter;
import org.apache.spark.shuffle.api.metadata.MapOutputCommitMessage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;

/**
 * One map attempt's output: its partitions, in increasing order, one after another in a data file
 * under a pending name of this writer's own. At commit the data file is closed (so Tarn has every
 * byte) and renamed into place, then the index is written under a pending name and renamed into
 * place, so a reader sees either no index or a whole one that matches a whole data file. Two writers
 * of one map task id (Spark before 3.0 reused ids across attempts; its test suite still does) both
 * finish: the first rename wins and the other takes the winner's partition lengths. An abort
 * removes what this writer wrote, never a committed file.
 */
final class TarnMapOutputWriter implements ShuffleMapOutputWriter {
    /** How long a writer that lost the race for the data file waits for the winner's index. */
    private static final long WINNER_WAIT_MS = 30_000;

    private final FileSystem fs;
    private final Path pendingData;
    private final Path data;
    private final Path pendingIndex;
    private final Path index;
    private final long[] lengths;
    private FSDataOutputStream out;
    private int lastPartition = -1;
    /** Bytes in the data file before the partition being written. */
    private long written;

    TarnMapOutputWriter(FileSystem fs, Path pendingData, Path data, Path pendingIndex, Path index,
            int numPartitions) {
        this.fs = fs;
        this.pendingData = pendingData;
        this.data = data;
        this.pendingIndex = pendingIndex;
        this.index = index;
        this.lengths = new long[numPartitions];
    }

    @Override
    public ShufflePartitionWriter getPartitionWriter(int reducePartitionId) throws IOException {
        if (reducePartitionId <= lastPartition || reducePartitionId >= lengths.length) {
            throw new IllegalArgumentException("partition " + reducePartitionId + " asked for after " + lastPartition
                    + " of " + lengths.length + ": partitions must come in increasing order");
        }
        lastPartition = reducePartitionId;
        if (out == null) {
            out = fs.create(pendingData, false);
        }
        return new PartitionWriter(reducePartitionId);
    }

    @Override
    public MapOutputCommitMessage commitAllPartitions(long[] checksums) throws IOException {
        if (out == null) {
            out = fs.create(pendingData, false); // no partition asked for: an empty map output, still committed
        }
        long length = out.getPos();
        out.close();
        out = null;
        if (length != written) {
            throw new IOException("the data file " + pendingData + " holds " + length + " bytes but its partitions "
                    + written);
        }
        if (!fs.rename(pendingData, data)) {
            fs.delete(pendingData, false);
            return MapOutputCommitMessage.of(winnersLengths());
        }
        try (FSDataOutputStream idx = fs.create(pendingIndex, false)) {
            idx.write(ShuffleIndex.encode(lengths));
        }
        if (!fs.rename(pendingIndex, index)) {
            throw new IOException("cannot rename " + pendingIndex + " to " + index + " to commit the map output");
        }
        return MapOutputCommitMessage.of(lengths.clone());
    }

    /** The partition lengths of the writer of the same map task id whose data file got into place first. */
    private long[] winnersLengths() throws IOException {
        long deadline = System.currentTimeMillis() + WINNER_WAIT_MS;
        while (true) {
            try (FSDataInputStream in = fs.open(index)) {
                byte[] bytes = new byte[ShuffleIndex.bytes(lengths.length)];
                in.readFully(0, bytes);
                long[] offsets = ShuffleIndex.decode(bytes, index.toString());
                long[] theirs = new long[lengths.length];
                for (int i = 0; i < theirs.length; i++) {
                    theirs[i] = offsets[i + 1] - offsets[i];
                }
                return theirs;
            } catch (FileNotFoundException notYet) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException(data + " is there but its index did not come within " + WINNER_WAIT_MS
                            + " ms: the writer that put it there failed", notYet);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted waiting for " + index, e);
                }
            }
        }
    }

    @Override
    public void abort(Throwable error) throws IOException {
        if (out != null) {
            try {
                out.close(); // fails again when the write failed (a full cluster): nothing to keep anyway
            } catch (IOException e) {
                error.addSuppressed(e);
            }
            out = null;
        }
        fs.delete(pendingData, false);
        fs.delete(pendingIndex, false);
    }

    /** The stream of one partition: counts its bytes into the data file and leaves the file open. */
    private final class PartitionWriter implements ShufflePartitionWriter {
        private final int partition;
        private long count;

        PartitionWriter(int partition) {
            this.partition = partition;
        }

        @Override
        public OutputStream openStream() {
            return new OutputStream() {
                private boolean closed;

                @Override
                public void write(int b) throws IOException {
                    check();
                    out.write(b);
                    count++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    check();
                    out.write(b, off, len);
                    count += len;
                }

                @Override
                public void close() {
                    if (!closed) {
                        closed = true;
                        lengths[partition] = count;
                        written += count;
                    }
                }

                private void check() throws IOException {
                    if (closed) {
                        throw new IOException("the stream of partition " + partition + " is closed");
                    }
                }
            };
        }

        @Override
        public long getNumBytesWritten() {
            return count;
        }
    }
}
