package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads one file: sequentially with read-ahead, or at any position.
 *
 * <p>Sequential reads keep up to {@code tarn.client.readahead} bytes of requests in flight ahead of
 * the position, each at most one chunk ({@code tarn.client.io.chunk}) within one block; responses are
 * consumed from the transport's buffers without another copy until they reach the caller's array.
 * {@link #seek} drops the read-ahead. {@link #read(long, byte[], int, int)} reads at a position
 * without moving the stream. The size is the one the file had when opened. Not thread-safe, except
 * that positional reads may run concurrently with each other.
 */
public final class TarnInputStream extends InputStream {
    /** Frees the buffers of streams dropped without close (one daemon thread for all streams). */
    private static final Cleaner CLEANER = Cleaner.create();
    private final TarnClient client;
    private final String path;
    /** The file's id, followed when a rename moves the file to another namenode. */
    private final FileRef file;
    private final long size;
    private final int blockSize;
    private final int chunkSize;
    private final long readahead;
    private final ArrayList<CompletableFuture<BlockRef>> refs = new ArrayList<>();
    private final Buffers buffers = new Buffers();
    private final Cleaner.Cleanable cleanable;

    private long position;
    private long requestedUpTo;
    private boolean closed;

    TarnInputStream(TarnClient client, String path, FileStatus status) {
        this.client = client;
        this.path = path;
        this.file = new FileRef(status.fileId());
        this.size = status.size();
        this.blockSize = Math.max(1, status.blockSize());
        this.chunkSize = (int) Math.min(blockSize, client.config().get(TarnKeys.CLIENT_IO_CHUNK));
        this.readahead = client.config().get(TarnKeys.CLIENT_READAHEAD);
        this.cleanable = CLEANER.register(this, buffers);
    }

    /** Bytes in the file as of opening. */
    public long length() {
        return size;
    }

    /** The position of the next byte {@link #read()} returns. */
    public long position() {
        return position;
    }

    @Override
    public int read() throws IOException {
        ensureOpen();
        if (position >= size) {
            return -1;
        }
        ByteBuf buf = current();
        position++;
        return buf.readUnsignedByte();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        if (len == 0) {
            return 0;
        }
        if (position >= size) {
            return -1;
        }
        int total = 0;
        while (len > 0 && position < size) {
            ByteBuf buf = currentOrNull(total);
            if (buf == null) {
                break;
            }
            int n = Math.min(len, buf.readableBytes());
            buf.readBytes(b, off, n);
            off += n;
            len -= n;
            total += n;
            position += n;
            if (total > 0 && buffers.ahead.isEmpty() && !buf.isReadable()) {
                break; // do not block for more than the caller already has
            }
        }
        return total;
    }

    /** Reads into {@code dst} until it is full or the file ends; returns the bytes read or -1 at the end. */
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (position >= size) {
            return -1;
        }
        int total = 0;
        while (dst.hasRemaining() && position < size) {
            ByteBuf buf = currentOrNull(total);
            if (buf == null) {
                break;
            }
            int n = Math.min(dst.remaining(), buf.readableBytes());
            int limit = dst.limit();
            dst.limit(dst.position() + n);
            buf.readBytes(dst);
            dst.limit(limit);
            total += n;
            position += n;
        }
        return total;
    }

    /** Moves the position; the next sequential read starts there. */
    public void seek(long pos) throws IOException {
        ensureOpen();
        if (pos < 0) {
            throw new EOFException("cannot seek to negative position " + pos + " in " + path);
        }
        if (pos > size) {
            throw new EOFException("cannot seek to " + pos + " past the end (" + size + ") of " + path);
        }
        if (pos == position) {
            return;
        }
        long delta = pos - position;
        if (buffers.current != null && delta > 0 && delta <= buffers.current.readableBytes()) {
            buffers.current.skipBytes((int) delta);
            position = pos;
            return;
        }
        dropReadahead();
        position = pos;
        requestedUpTo = pos;
    }

    @Override
    public long skip(long n) throws IOException {
        if (n <= 0) {
            return 0;
        }
        long target = Math.min(size, position + n);
        long skipped = target - position;
        seek(target);
        return skipped;
    }

    @Override
    public int available() {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, size - position));
    }

    /**
     * Reads up to {@code len} bytes at {@code pos} without moving the stream; returns the bytes read,
     * -1 when {@code pos} is at or past the end.
     */
    public int read(long pos, byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        if (pos < 0) {
            throw new EOFException("negative position " + pos + " in " + path);
        }
        if (pos >= size) {
            return len == 0 ? 0 : -1;
        }
        TarnClient.refuseOnIoThread(); // before any request, so that no answer is left unread
        int n = (int) Math.min(len, size - pos);
        List<CompletableFuture<ByteBuf>> parts = new ArrayList<>();
        long p = pos;
        long end = pos + n;
        while (p < end) {
            int piece = pieceLength(p, end);
            parts.add(requestRange(p, piece));
            p += piece;
        }
        int at = off;
        IOException failure = null;
        for (CompletableFuture<ByteBuf> part : parts) {
            try {
                ByteBuf buf = TarnClient.await(part);
                try {
                    if (failure == null) {
                        int got = buf.readableBytes();
                        buf.readBytes(b, at, got);
                        at += got;
                    }
                } finally {
                    buf.release();
                }
            } catch (IOException e) {
                part.thenAccept(ByteBuf::release); // an interrupted wait: the data still arrives
                if (failure == null) {
                    failure = describe(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return n;
    }

    /**
     * Reads up to {@code dst.remaining()} bytes at {@code pos} without moving the stream, returning at
     * once; the future completes with the number of bytes read (-1 when {@code pos} is at or past
     * the end), after they are in {@code dst} and its position has advanced by that number, as with
     * {@link java.nio.channels.AsynchronousFileChannel#read}. Leave {@code dst} alone until then.
     * Many reads may be in flight on one stream; they complete on transport threads.
     */
    public CompletableFuture<Integer> readAsync(long pos, ByteBuffer dst) {
        try {
            ensureOpen();
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (pos < 0) {
            return CompletableFuture.failedFuture(new EOFException("negative position " + pos + " in " + path));
        }
        if (pos >= size) {
            return CompletableFuture.completedFuture(dst.hasRemaining() ? -1 : 0);
        }
        int n = (int) Math.min(dst.remaining(), size - pos);
        int base = dst.position();
        List<CompletableFuture<Void>> parts = new ArrayList<>();
        long p = pos;
        long end = pos + n;
        while (p < end) {
            int piece = pieceLength(p, end);
            int at = base + (int) (p - pos);
            parts.add(requestRange(p, piece).thenAccept(buf -> {
                try {
                    buf.getBytes(buf.readerIndex(), dst.duplicate().position(at).limit(at + piece));
                } finally {
                    buf.release();
                }
            }));
            p += piece;
        }
        CompletableFuture<Void> all = parts.size() == 1 ? parts.get(0)
                : CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
        return all.handle((v, e) -> {
            if (e != null) {
                Throwable cause = TarnClient.unwrap(e);
                IOException io = cause instanceof IOException ? describe((IOException) cause)
                        : TarnClient.asIOException(cause);
                throw new java.util.concurrent.CompletionException(io);
            }
            dst.position(base + n);
            return n;
        });
    }

    /**
     * Blocking form of {@link #readAsync}: reads up to {@code dst.remaining()} bytes at {@code pos}
     * into {@code dst} without moving the stream; -1 at or past the end.
     */
    public int read(long pos, ByteBuffer dst) throws IOException {
        TarnClient.refuseOnIoThread(); // before any request, so that no answer is left unread
        return TarnClient.await(readAsync(pos, dst));
    }

    /** Fills {@code dst} from {@code pos} on, or throws {@link EOFException} when the file ends first. */
    public void readFully(long pos, ByteBuffer dst) throws IOException {
        long at = pos;
        while (dst.hasRemaining()) {
            int n = read(at, dst);
            if (n < 0) {
                throw new EOFException("end of " + path + " at " + at + " while reading " + dst.remaining()
                        + " more bytes");
            }
            at += n;
        }
    }

    /** Reads exactly {@code len} bytes at {@code pos} or throws {@link EOFException}. */
    public void readFully(long pos, byte[] b, int off, int len) throws IOException {
        int done = 0;
        while (done < len) {
            int n = read(pos + done, b, off + done, len - done);
            if (n < 0) {
                throw new EOFException("end of " + path + " at " + (pos + done) + " while reading " + len + " bytes at " + pos);
            }
            done += n;
        }
    }

    /**
     * Releases the read-ahead buffers and cached block locations, keeping the position; the next
     * read fetches them again. For callers that keep many streams open but idle (Hadoop's
     * {@code CanUnbuffer}).
     */
    public void unbuffer() {
        dropReadahead();
        requestedUpTo = position;
        synchronized (this) {
            refs.clear();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        cleanable.clean();
    }

    /** The chunk being read, or null: for tests that check it is released. */
    ByteBuf currentBuffer() {
        return buffers.current;
    }

    // ------------------------------------------------------------------ internals

    /**
     * Like {@link #current()}, for a read that already copied {@code copied} bytes: a failure then
     * returns null, so the read returns those bytes (they are consumed and cannot be given again)
     * and the next read meets the failure. Only a read that copied nothing throws, as
     * {@link InputStream#read(byte[], int, int)} requires.
     */
    private ByteBuf currentOrNull(int copied) throws IOException {
        try {
            return current();
        } catch (IOException e) {
            if (copied > 0) {
                return null;
            }
            throw e;
        }
    }

    /** The buffer holding the byte at {@link #position}, waiting for it if needed. */
    private ByteBuf current() throws IOException {
        if (buffers.current != null && buffers.current.isReadable()) {
            return buffers.current;
        }
        if (buffers.current != null) {
            buffers.current.release();
            buffers.current = null;
        }
        if (buffers.ahead.isEmpty()) {
            requestedUpTo = position;
        }
        fillReadahead();
        CompletableFuture<ByteBuf> next = buffers.ahead.pollFirst();
        try {
            buffers.current = TarnClient.await(next);
        } catch (IOException e) {
            next.thenAccept(ByteBuf::release); // an interrupted wait: the data still arrives
            dropReadahead();
            requestedUpTo = position;
            throw describe(e);
        } catch (IllegalStateException e) {
            buffers.ahead.addFirst(next); // refused to wait on an I/O thread: nothing happened
            throw e;
        }
        fillReadahead();
        return buffers.current;
    }

    private void fillReadahead() {
        long limit = Math.min(size, position + Math.max(readahead, 1));
        while (requestedUpTo < size && (buffers.ahead.isEmpty() || requestedUpTo < limit)) {
            int piece = pieceLength(requestedUpTo, size);
            buffers.ahead.addLast(requestRange(requestedUpTo, piece));
            requestedUpTo += piece;
        }
    }

    /** Bytes of one data request starting at {@code pos}: at most a chunk, within one block, not past {@code end}. */
    private int pieceLength(long pos, long end) {
        return (int) Math.min(end - pos, Math.min(chunkSize, blockSize - (pos % blockSize)));
    }

    private CompletableFuture<ByteBuf> requestRange(long pos, int length) {
        int index = (int) (pos / blockSize);
        int offset = (int) (pos % blockSize);
        return ref(index).thenCompose(r -> client.data().read(r, offset, length)).thenApply(buf -> {
            if (buf.readableBytes() != length) {
                int got = buf.readableBytes();
                buf.release();
                throw new java.util.concurrent.CompletionException(new TarnException(ErrorCode.MALFORMED_REQUEST,
                        "datanode returned " + got + " bytes instead of " + length));
            }
            return buf;
        });
    }

    private synchronized CompletableFuture<BlockRef> ref(int index) {
        while (refs.size() <= index) {
            refs.add(null);
        }
        CompletableFuture<BlockRef> f = refs.get(index);
        if (f == null || f.isCompletedExceptionally()) {
            f = client.readBlock(file, index);
            refs.set(index, f);
        }
        return f;
    }

    private void dropReadahead() {
        buffers.release();
    }


    /**
     * The buffers a stream holds: the chunk being read and the read-ahead. Kept apart from the
     * stream (and never pointing back at it) so that {@link #CLEANER} can free them when a stream
     * is dropped without {@link #close()}, as some callers do (Hadoop's TeraSort sampler, for one);
     * otherwise that direct memory would never return to the pool.
     */
    private static final class Buffers implements Runnable {
        final ArrayDeque<CompletableFuture<ByteBuf>> ahead = new ArrayDeque<>();
        ByteBuf current;

        @Override
        public void run() {
            release();
        }

        void release() {
            if (current != null) {
                current.release();
                current = null;
            }
            CompletableFuture<ByteBuf> f;
            while ((f = ahead.pollFirst()) != null) {
                f.whenComplete((buf, e) -> {
                    if (buf != null) {
                        buf.release();
                    }
                });
            }
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new TarnException(ErrorCode.FILE_CLOSED, "stream for " + path + " is closed");
        }
    }

    /** The same kind of exception, with the path in its message when the server did not name it. */
    private IOException describe(IOException e) {
        if (e instanceof io.tarn.common.error.TarnError && !String.valueOf(e.getMessage()).contains(path)) {
            IOException named = TarnException.of(((io.tarn.common.error.TarnError) e).code(),
                    "reading " + path + ": " + e.getMessage());
            named.initCause(e);
            return named;
        }
        return e;
    }
}
