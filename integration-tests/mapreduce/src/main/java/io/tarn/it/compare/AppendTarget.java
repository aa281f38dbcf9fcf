package io.tarn.it.compare;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A file system under the replicated-write comparison ({@link ReplicatedWriteComparison}): it makes
 * files of a given replication, each written by one thread through an {@link Appender}. Both file
 * systems' client APIs only append, so every workload appends to files of its own.
 */
interface AppendTarget extends AutoCloseable {
    /** How the tables name the file system and its setup. */
    String description();

    /** Short name used in the series labels ("Tarn", "HDFS"). */
    String name();

    /** A new file at {@code path} (replacing one there) with {@code replication} copies. */
    Appender create(String path, int replication) throws IOException;

    /** Removes the directory {@code path} and everything under it. */
    void deleteTree(String path) throws IOException;

    @Override
    void close() throws IOException;

    /** A stream's {@code hflush} or {@code hsync}. */
    @FunctionalInterface
    interface Flush {
        void run() throws IOException;
    }

    /** An appender writing to {@code out}, flushing with {@code hflush} or, asked to sync, {@code hsync}. */
    static Appender over(OutputStream out, Flush hflush, Flush hsync) {
        return new Appender() {
            @Override
            public void write(byte[] data, int off, int len) throws IOException {
                out.write(data, off, len);
            }

            @Override
            public void flush(boolean sync) throws IOException {
                (sync ? hsync : hflush).run();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }

    /** One open file, written by one thread. */
    interface Appender extends AutoCloseable {
        void write(byte[] data, int off, int len) throws IOException;

        /**
         * Returns once every byte written so far is acknowledged: {@code hflush} (in the replicas'
         * memory, and for a Tarn group in the journal of a majority), or with {@code sync}
         * {@code hsync} (HDFS: forced to disk on every datanode of the pipeline).
         */
        void flush(boolean sync) throws IOException;

        /** Completes the file; returns once its bytes are acknowledged. */
        @Override
        void close() throws IOException;
    }
}
