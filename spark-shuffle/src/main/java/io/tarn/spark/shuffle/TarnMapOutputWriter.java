package io.tarn.spark.shuffle;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.shuffle.api.ShuffleMapOutputWriter;
import org.apache.spark.shuffle.api.ShufflePartitionWriter;
import org.apache.spark.shuffle.api.metadata.MapOutputCommitMessage;

import java.io.IOException;
import java.io.OutputStream;

/**
 * One map attempt's output: its partitions, in increasing order, one after another in one data
 * file; at commit the data file is closed (so Tarn has every byte) and then the index is written
 * under a pending name and renamed into place, so a reader sees either no index or a whole one that
 * matches a whole data file. An abort removes what the attempt wrote.
 */
final class TarnMapOutputWriter implements ShuffleMapOutputWriter {
    private final FileSystem fs;
    private final Path data;
    private final Path pendingIndex;
    private final Path index;
    private final long[] lengths;
    private FSDataOutputStream out;
    private int lastPartition = -1;
    /** Bytes in the data file before the partition being written. */
    private long written;

    TarnMapOutputWriter(FileSystem fs, Path data, Path pendingIndex, Path index, int numPartitions) {
        this.fs = fs;
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
            out = fs.create(data, true);
        }
        return new PartitionWriter(reducePartitionId);
    }

    @Override
    public MapOutputCommitMessage commitAllPartitions(long[] checksums) throws IOException {
        if (out == null) {
            out = fs.create(data, true); // no partition asked for: an empty map output, still committed
        }
        long length = out.getPos();
        out.close();
        out = null;
        if (length != written) {
            throw new IOException("the data file " + data + " holds " + length + " bytes but its partitions "
                    + written);
        }
        try (FSDataOutputStream idx = fs.create(pendingIndex, true)) {
            idx.write(ShuffleIndex.encode(lengths));
        }
        if (!fs.rename(pendingIndex, index)) {
            throw new IOException("cannot rename " + pendingIndex + " to " + index + " to commit the map output");
        }
        return MapOutputCommitMessage.of(lengths.clone());
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
        fs.delete(data, false);
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
