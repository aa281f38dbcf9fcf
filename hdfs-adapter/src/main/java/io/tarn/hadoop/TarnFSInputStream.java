package io.tarn.hadoop;

import io.tarn.client.TarnInputStream;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.VectoredReadUtils;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The Hadoop face of a {@link TarnInputStream}: seekable and positioned reads into arrays and
 * buffers, vectored reads issued all at once, and {@link CanUnbuffer}.
 *
 * <p>What it declares ({@link #hasCapability}) is what it does: {@code in:readbytebuffer},
 * {@code in:preadbytebuffer}, {@code in:unbuffer}, {@code in:readvectored}. Vectored reads hand each
 * range to the Tarn client at once ({@link TarnInputStream#readAsync}); ranges are neither merged
 * nor sliced from one buffer, and their futures complete on a pool thread, never on a transport
 * thread, so a caller's continuation may block. Bytes read are counted in the file system's
 * {@link FileSystem.Statistics}. Once closed, every read, seek and {@code available()} throws;
 * {@code getPos()} and {@code unbuffer()} still answer.
 */
final class TarnFSInputStream extends FSInputStream
        implements ByteBufferReadable, ByteBufferPositionedReadable, CanUnbuffer, StreamCapabilities {

    private final TarnInputStream in;
    private final String path;
    private final FileSystem.Statistics statistics;
    private volatile boolean closed;

    TarnFSInputStream(TarnInputStream in, String path, FileSystem.Statistics statistics) {
        this.in = in;
        this.path = path;
        this.statistics = statistics;
    }

    // ------------------------------------------------------------------ sequential

    @Override
    public int read() throws IOException {
        checkOpen();
        int b = in.read();
        if (b >= 0) {
            countRead(1);
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        checkOpen();
        int n = in.read(b, off, len);
        countRead(n);
        return n;
    }

    @Override
    public int read(ByteBuffer buf) throws IOException {
        checkOpen();
        int n = in.read(buf);
        countRead(n);
        return n;
    }

    @Override
    public void seek(long pos) throws IOException {
        checkOpen();
        if (pos < 0) {
            throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + ": " + pos + " in " + path);
        }
        if (pos > in.length()) {
            throw new EOFException(FSExceptionMessages.CANNOT_SEEK_PAST_EOF + ": " + pos + " > " + in.length()
                    + " in " + path);
        }
        in.seek(pos);
    }

    /** The position; still answers once closed (the last position), as callers tidying up expect. */
    @Override
    public long getPos() {
        return in.position();
    }

    @Override
    public boolean seekToNewSource(long targetPos) {
        return false; // one copy of each block: there is no other source
    }

    @Override
    public long skip(long n) throws IOException {
        checkOpen();
        return in.skip(n);
    }

    @Override
    public int available() throws IOException {
        checkOpen();
        return in.available();
    }

    // ------------------------------------------------------------------ positioned

    @Override
    public int read(long position, byte[] buffer, int offset, int length) throws IOException {
        checkOpen();
        validatePositionedReadArgs(position, buffer, offset, length);
        int n = in.read(position, buffer, offset, length);
        countRead(n);
        return n;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        checkOpen();
        validatePositionedReadArgs(position, buffer, offset, length);
        in.readFully(position, buffer, offset, length);
        countRead(length);
    }

    @Override
    public void readFully(long position, byte[] buffer) throws IOException {
        readFully(position, buffer, 0, buffer.length);
    }

    @Override
    public int read(long position, ByteBuffer buf) throws IOException {
        checkOpen();
        if (position < 0) {
            throw new EOFException("cannot read at negative position " + position + " in " + path);
        }
        int n = in.read(position, buf);
        countRead(n);
        return n;
    }

    @Override
    public void readFully(long position, ByteBuffer buf) throws IOException {
        long at = position;
        while (buf.hasRemaining()) {
            int n = read(at, buf);
            if (n < 0) {
                throw new EOFException(FSExceptionMessages.EOF_IN_READ_FULLY + ": " + path + " ends before "
                        + (at + buf.remaining()));
            }
            at += n;
        }
    }

    // ------------------------------------------------------------------ vectored

    @Override
    public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
        readVectored(ranges, allocate, buffer -> { });
    }

    /**
     * Issues every range at once. Ranges are checked first (sorted, none overlapping, none past the
     * end: {@link EOFException} before anything is read); a buffer whose read fails is handed back
     * to {@code release}.
     */
    @Override
    public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate,
                             Consumer<ByteBuffer> release) throws IOException {
        Objects.requireNonNull(allocate, "allocate");
        Objects.requireNonNull(release, "release");
        checkOpen();
        List<? extends FileRange> sorted = VectoredReadUtils.validateAndSortRanges(ranges, Optional.of(in.length()));
        for (FileRange range : sorted) {
            ByteBuffer buffer = allocate.apply(range.getLength());
            CompletableFuture<ByteBuffer> data = new CompletableFuture<>();
            range.setData(data);
            in.readAsync(range.getOffset(), buffer).whenCompleteAsync((n, failure) -> {
                if (failure != null) {
                    release.accept(buffer);
                    data.completeExceptionally(HadoopErrors.asIOException(failure));
                } else {
                    countRead(n);
                    buffer.flip();
                    data.complete(buffer);
                }
            }, ForkJoinPool.commonPool());
        }
    }

    // ------------------------------------------------------------------ unbuffer, capabilities, close

    /**
     * Frees the read-ahead buffers (up to {@code tarn.client.readahead} of data) and the cached
     * block locations; the position stays, and the next read fetches from there. Tarn streams own
     * no connection (they share their client's), so that is all an idle stream holds.
     */
    @Override
    public void unbuffer() {
        if (!closed) {
            in.unbuffer();
        }
    }

    @Override
    public boolean hasCapability(String capability) {
        switch (capability.toLowerCase(Locale.ENGLISH)) {
            case StreamCapabilities.READBYTEBUFFER:
            case StreamCapabilities.PREADBYTEBUFFER:
            case StreamCapabilities.UNBUFFER:
            case StreamCapabilities.VECTOREDIO:
                return true;
            default:
                return false;
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        in.close();
        super.close();
    }

    @Override
    public String toString() {
        return "TarnFSInputStream{" + path + ", pos=" + in.position() + ", length=" + in.length()
                + (closed ? ", closed" : "") + "}";
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + ": " + path);
        }
    }

    private void countRead(long n) {
        if (statistics != null && n > 0) {
            statistics.incrementBytesRead(n);
        }
    }
}
