package io.tarn.spark.shuffle;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Fetches the blocks a reduce task reads, ahead of it and in the order it reads them, with a bound
 * on the bytes fetched and not yet read.
 *
 * <p>The requested partitions of a map are one range of its data file (partitions are stored in
 * order). The range is cut into pieces of at most {@code pieceBytes}, and pieces are requested in
 * reading order, with vectored reads, while the bytes requested and not yet read stay within
 * {@code maxBytesInFlight} (one piece is always allowed, so a block larger than the bound is
 * streamed piece by piece). On Tarn a vectored read is an asynchronous read whose bytes land in the
 * piece's buffer: the datanodes serve the next maps' pieces while the task deserializes the current
 * one. On a file system without asynchronous reads (HDFS) the same calls read at once, and the bound
 * still holds.
 *
 * <p>A map's index is read, and its data file opened, just before its first piece is requested:
 * with plain calls on the task's thread (an open and a positional read of a few hundred bytes, tens
 * of microseconds on Tarn), since asynchronous calls hand their completion to a pool thread, which
 * here cost more than the call. Everything happens on the task's thread; only the pieces' bytes
 * arrive from elsewhere. A failure that may pass is retried on a freshly opened stream as
 * {@link ReadRetries} says; anything else, or the last retry's failure, ends the read with a
 * {@link FetchFailedException} for the map whose file failed.
 */
final class ShuffleFetcher {
    private static final Logger LOG = LoggerFactory.getLogger(ShuffleFetcher.class);
    /** Spark's own setting for the bytes a reduce task fetches ahead; honoured here too. */
    static final String MAX_IN_FLIGHT_KEY = "spark.reducer.maxSizeInFlight";
    private static final int MAX_PIECE = 8 << 20;
    private static final int MIN_PIECE = 64 << 10;

    /** One map's output as the map output tracker names it: the attempt and its non-empty blocks. */
    record MapOutput(long mapId, int mapIndex, BlockManagerId location, List<Integer> reduceIds) {
    }

    /** A block to read: its id and its bytes, streamed from the fetched pieces. */
    record Block(ShuffleBlockId id, InputStream bytes) {
    }

    private final FileSystem fs;
    private final ShuffleLayout layout;
    private final String appId;
    private final int shuffleId;
    private final int indexBytes;
    private final int fallbackReduceId;
    private final long maxBytesInFlight;
    private final int pieceBytes;
    private final ReadRetries retries;
    private final ShuffleReadMetricsReporter metrics;
    private final Fetch[] maps;

    /** The map whose pieces are requested next. */
    private int requesting;
    /** Pieces requested and not yet taken by the reading, in reading order. */
    private final ArrayDeque<Piece> pieces = new ArrayDeque<>();
    /** Bytes of pieces requested and not yet read to their end. */
    private long bytesInFlight;
    /** The map being read, its next block and the block being read. */
    private int reading = -1;
    private int nextBlock;
    private int reduceId;
    /** The piece being read. */
    private Piece current;
    private long waitNanos;
    private boolean closed;

    ShuffleFetcher(FileSystem fs, ShuffleLayout layout, String appId, int shuffleId, int partitions,
            List<MapOutput> maps, int fallbackReduceId, long maxBytesInFlight, ReadRetries retries,
            ShuffleReadMetricsReporter metrics) {
        if (maxBytesInFlight <= 0) {
            throw new IllegalArgumentException(MAX_IN_FLIGHT_KEY + " must be positive, got " + maxBytesInFlight);
        }
        this.fs = fs;
        this.layout = layout;
        this.appId = appId;
        this.shuffleId = shuffleId;
        this.indexBytes = ShuffleIndex.bytes(partitions);
        this.fallbackReduceId = fallbackReduceId;
        this.maxBytesInFlight = maxBytesInFlight;
        this.pieceBytes = (int) Math.max(MIN_PIECE, Math.min(MAX_PIECE, maxBytesInFlight / 4));
        this.retries = retries;
        this.metrics = metrics;
        this.maps = new Fetch[maps.size()];
        for (int i = 0; i < this.maps.length; i++) {
            this.maps[i] = new Fetch(maps.get(i));
        }
    }

    /** Nanoseconds the task has waited for bytes so far. */
    long waitNanos() {
        return waitNanos;
    }

    /** Bytes requested and not yet read (for tests). */
    long bytesInFlight() {
        return bytesInFlight;
    }

    /** The piece size for this bound (for tests). */
    int pieceBytes() {
        return pieceBytes;
    }

    /**
     * The next block, or null when every block has been handed out. The previous block's stream is
     * done with: its remaining bytes are skipped.
     */
    Block nextBlock() {
        if (closed) {
            throw new IllegalStateException("the fetcher is closed");
        }
        while (reading < 0 || nextBlock == maps[reading].output.reduceIds().size()) {
            if (reading >= 0) {
                finishMap(maps[reading]);
            }
            if (reading + 1 == maps.length) {
                return null;
            }
            reading++;
            nextBlock = 0;
            ready(maps[reading]);
        }
        Fetch m = maps[reading];
        reduceId = m.output.reduceIds().get(nextBlock++);
        if (reduceId + 1 >= m.offsets.length) {
            throw fetchFailed(m, null, "its index has " + (m.offsets.length - 1) + " partitions, not "
                    + (reduceId + 1));
        }
        long start = m.offsets[reduceId];
        long end = m.offsets[reduceId + 1];
        skipTo(m, start);
        metrics.incRemoteBlocksFetched(1);
        return new Block(new ShuffleBlockId(shuffleId, m.output.mapId(), reduceId), new BlockStream(m, end));
    }

    /** Closes every stream; bytes still arriving land in buffers nobody reads. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        pieces.clear();
        current = null;
        bytesInFlight = 0;
        for (int i = Math.max(reading, 0); i < maps.length; i++) {
            maps[i].close();
        }
    }

    // ------------------------------------------------------------------ requesting

    /**
     * Requests pieces in reading order within the bound, preparing each map (its index read, its
     * data file opened) just before its first piece. A map that fails to prepare stops the
     * requesting until the reading reaches it and retries.
     */
    private void pump() {
        while (requesting < maps.length && !closed) {
            Fetch m = maps[requesting];
            if (m.failure != null) {
                return;
            }
            if (m.offsets == null) {
                if (bytesInFlight >= maxBytesInFlight) {
                    return; // no room for its first piece yet: prepare it later
                }
                try {
                    prepare(m);
                } catch (IOException e) {
                    m.failure = e;
                    return;
                }
            }
            if (m.requestedTo >= m.end) {
                requesting++;
                continue;
            }
            int length = (int) Math.min(pieceBytes, m.end - m.requestedTo);
            if (bytesInFlight > 0 && bytesInFlight + length > maxBytesInFlight) {
                return;
            }
            pieces.add(new Piece(m, m.requestedTo, length, request(m.data, m.requestedTo, length)));
            bytesInFlight += length;
            m.requestedTo += length;
        }
    }

    /** Reads the map's index and opens its data file. */
    private void prepare(Fetch m) throws IOException {
        byte[] index = new byte[indexBytes];
        try (FSDataInputStream in = fs.open(m.indexPath)) {
            in.readFully(0, index); // EOFException for a shorter file: not retried
        }
        long[] offsets = ShuffleIndex.decode(index, m.indexPath.toString());
        FSDataInputStream data = fs.open(m.dataPath);
        m.offsets = offsets;
        m.data = data;
        m.setSpan();
    }

    /** A vectored read of one range; a failure to issue it (a range past the end) fails its future. */
    private static CompletableFuture<ByteBuffer> request(FSDataInputStream in, long position, int length) {
        FileRange range = FileRange.createFileRange(position, length);
        try {
            in.readVectored(List.of(range), ByteBuffer::allocate);
            return range.getData();
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ------------------------------------------------------------------ reading

    /** Makes the map the reading reached ready, retrying what may pass, and requests its pieces. */
    private void ready(Fetch m) {
        long started = System.nanoTime();
        try {
            pump();
            if (m.offsets == null) {
                retrying(m, "read its index", () -> {
                    if (m.failure != null) {
                        IOException failed = m.failure;
                        m.failure = null;
                        throw failed;
                    }
                    prepare(m);
                    return m;
                }, () -> { });
                pump();
            }
        } finally {
            waitNanos += System.nanoTime() - started;
        }
    }

    /** Moves the reading to {@code position} of the map's data, dropping the bytes before it. */
    private void skipTo(Fetch m, long position) {
        while (true) {
            Piece p = piece(m);
            if (p == null) {
                return;
            }
            long at = p.position + p.buffer.position();
            if (at >= position) {
                return;
            }
            int skip = (int) Math.min(p.buffer.remaining(), position - at);
            p.buffer.position(p.buffer.position() + skip);
        }
    }

    /**
     * The piece being read of map {@code m} with bytes left in it, waiting for it to arrive; null
     * when the map has no bytes left. A piece read to its end is released first.
     */
    private Piece piece(Fetch m) {
        if (current != null && current.buffer.hasRemaining()) {
            return current;
        }
        long started = System.nanoTime();
        try {
            if (current != null) {
                bytesInFlight -= current.length;
                current = null;
            }
            pump();
            Piece next = pieces.peek();
            if (next == null || next.map != m) {
                return null;
            }
            pieces.poll();
            ByteBuffer buffer = retrying(m, "read its data", () -> await(next.data),
                    () -> next.data = request(reopen(m), next.position, next.length));
            if (buffer.remaining() != next.length) {
                throw fetchFailed(m, new EOFException(), "its data file ended within bytes " + next.position
                        + ".." + (next.position + next.length) + " that its index covers");
            }
            next.buffer = buffer;
            current = next;
            pump();
            return current;
        } finally {
            waitNanos += System.nanoTime() - started;
        }
    }

    /**
     * Opens the map's data file again for a retry; the failed stream is closed with the map. A
     * failure to open is the retry's failure: the stream given then fails every read.
     */
    private FSDataInputStream reopen(Fetch m) {
        try {
            FSDataInputStream again = fs.open(m.dataPath);
            m.retired.add(m.data);
            m.data = again;
            return again;
        } catch (IOException e) {
            LOG.debug("Reopening {} for a retry failed", m.dataPath, e);
            return m.data;
        }
    }

    private void finishMap(Fetch m) {
        if (current != null) {
            bytesInFlight -= current.length;
            current = null;
        }
        while (!pieces.isEmpty() && pieces.peek().map == m) {
            bytesInFlight -= pieces.poll().length; // bytes of partitions not asked for: none in practice
        }
        m.close();
    }

    /** What the reading does, and what it does before trying again. */
    private interface Attempt<T> {
        T run() throws IOException, InterruptedException;
    }

    /** Runs {@code attempt}, retrying failures that may pass after {@code reset}; the last failure fails the fetch. */
    private <T> T retrying(Fetch m, String what, Attempt<T> attempt, Runnable reset) {
        try {
            for (int failures = 1; ; failures++) {
                IOException failure;
                try {
                    return attempt.run();
                } catch (IOException e) {
                    failure = e;
                }
                if (!retries.worthAnother(failure, failures)) {
                    throw fetchFailed(m, failure, "cannot " + what + " on Tarn: " + failure);
                }
                LOG.warn("Reading the output of map {} of shuffle {} from Tarn failed ({}); trying again in {} ms "
                        + "({} of {} retries, {})", m.output.mapId(), shuffleId, failure, retries.waitMillis(),
                        failures, retries.retries(), ReadRetries.RETRIES_KEY);
                retries.pause();
                reset.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw sneaky(e); // the task was killed
        }
    }

    private static <T> T await(CompletableFuture<T> future) throws IOException, InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(String.valueOf(cause), cause);
        }
    }

    private RuntimeException fetchFailed(Fetch m, Throwable cause, String why) {
        List<Integer> ids = m.output.reduceIds();
        int reduce = m == maps[Math.max(reading, 0)] && nextBlock > 0 ? reduceId
                : ids.isEmpty() ? fallbackReduceId : ids.get(0);
        String message = "shuffle " + shuffleId + ", map " + m.output.mapId() + " (index " + m.output.mapIndex()
                + "): " + why;
        return sneaky(new FetchFailedException(m.output.location(), shuffleId, m.output.mapId(),
                m.output.mapIndex(), reduce, message, cause));
    }

    /** Throws a checked exception (FetchFailedException is one) from code that declares none. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
        throw (E) e;
    }

    // ------------------------------------------------------------------ state

    /** One map's fetch: its index's offsets, its open data file, the range to read and how far it is requested. */
    private final class Fetch {
        final MapOutput output;
        final Path indexPath;
        final Path dataPath;
        long[] offsets;
        FSDataInputStream data;
        /** Why preparing it ahead failed; the reading retries when it gets there. */
        IOException failure;
        /** Streams replaced by a retry's; closed with the map. */
        final List<FSDataInputStream> retired = new ArrayList<>(0);
        long end;
        long requestedTo;

        Fetch(MapOutput output) {
            this.output = output;
            this.indexPath = layout.index(appId, shuffleId, output.mapId());
            this.dataPath = layout.data(appId, shuffleId, output.mapId());
        }

        /** The bytes to read: from the first requested partition to the end of the last. */
        void setSpan() {
            List<Integer> ids = output.reduceIds();
            if (ids.isEmpty() || ids.get(ids.size() - 1) + 1 >= offsets.length) {
                requestedTo = 0;
                end = 0; // nothing, or an index too small: nextBlock reports it
            } else {
                requestedTo = offsets[ids.get(0)];
                end = offsets[ids.get(ids.size() - 1) + 1];
            }
        }

        void close() {
            closeQuietly(data);
            data = null;
            retired.forEach(ShuffleFetcher::closeQuietly);
            retired.clear();
        }
    }

    private static void closeQuietly(FSDataInputStream in) {
        if (in != null) {
            try {
                in.close();
            } catch (IOException ignored) {
                // only read from
            }
        }
    }

    /** A range of a map's data file, requested; its buffer once arrived. */
    private static final class Piece {
        final Fetch map;
        final long position;
        final int length;
        CompletableFuture<ByteBuffer> data;
        ByteBuffer buffer;

        Piece(Fetch map, long position, int length, CompletableFuture<ByteBuffer> data) {
            this.map = map;
            this.position = position;
            this.length = length;
            this.data = data;
        }
    }

    /** One block's bytes: from where the reading is to {@code end} of the map's data file. */
    private final class BlockStream extends InputStream {
        private final Fetch map;
        private final long end;

        BlockStream(Fetch map, long end) {
            this.map = map;
            this.end = end;
        }

        @Override
        public int read() {
            Piece p = next();
            if (p == null) {
                return -1;
            }
            metrics.incRemoteBytesRead(1);
            return p.buffer.get() & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            Piece p = next();
            if (p == null) {
                return -1;
            }
            long left = end - (p.position + p.buffer.position());
            int n = (int) Math.min(Math.min(len, p.buffer.remaining()), left);
            p.buffer.get(b, off, n);
            metrics.incRemoteBytesRead(n);
            return n;
        }

        /** The piece holding this block's next byte, or null at the block's end. */
        private Piece next() {
            if (closed || reading < 0 || maps[reading] != map) {
                return null;
            }
            Piece p = piece(map);
            if (p == null || p.position + p.buffer.position() >= end) {
                return null;
            }
            return p;
        }
    }
}
