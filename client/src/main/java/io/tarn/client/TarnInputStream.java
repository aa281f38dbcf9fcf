package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Reads one file: sequentially with read-ahead, or at any position.
 *
 * <p>Sequential reads keep up to {@code tarn.client.readahead} bytes of requests in flight ahead of
 * the position ({@code tarn.client.readahead.shortcircuit} while its reads are short-circuit copies
 * it makes itself), topped up in batches once half of it is consumed, each request at most one
 * chunk ({@code tarn.client.io.chunk}) within one block; responses are consumed from the
 * transport's buffers without another copy until they reach the caller's array. A caller reading
 * into a direct {@link ByteBuffer} with room for a whole request it is waiting for gets that
 * request's data received from the socket straight into its buffer ({@link Landing}), as do
 * positional reads into direct buffers.
 * {@link #seek} drops the read-ahead. {@link #read(long, byte[], int, int)} reads at a position
 * without moving the stream. The size is the one the file had when opened. Not thread-safe, except
 * that positional reads may run concurrently with each other.
 *
 * <p>The stream itself keeps the sequential reader's state: the position, the read-ahead and the
 * buffer being read. Cutting ranges into data requests and the positional reads are its
 * {@link RangeReader}'s, the block locations its {@link BlockLocations}'.
 */
public final class TarnInputStream extends InputStream {
    /** Frees the buffers of streams dropped without close (one daemon thread for all streams). */
    private static final Cleaner CLEANER = Cleaner.create();
    private final TarnClient client;
    private final String path;
    private final long size;
    private final int chunkSize;
    private final long readahead;
    /** The read-ahead while the reads are short-circuit copies left to this reader (grants only). */
    private final long readaheadShortCircuit;
    /**
     * True while this stream's reads are granted short-circuit ({@link Landing#park}): its read-ahead
     * is then grants whose copies wait for it, which hold no memory, and goes
     * {@link #readaheadShortCircuit} ahead. Set by the grant, not by whether its copy was parked: a
     * reader that outruns its grants waits for them and needs the longer read-ahead the most.
     */
    private boolean readingShortCircuit;
    /** Where the file's blocks are, asked a page at a time. */
    private final BlockLocations locations;
    /** Cuts ranges into data requests; makes the positional reads. */
    private final RangeReader ranges;
    private final Buffers buffers = new Buffers();
    private final Cleaner.Cleanable cleanable;

    private long position;
    private long requestedUpTo;
    /**
     * Set while the caller reads into direct buffers of a chunk or more, which it offers for the
     * data ({@link #receiveStraightInto}): short-circuit copies of the read-ahead, which wait for
     * the reader ({@link Landing#park}), then go straight into its buffer. Other reads (into
     * arrays, say) copy out of a view of the region ({@link Landing#takeView}), also once.
     */
    private boolean offersBuffers;
    private boolean closed;

    TarnInputStream(TarnClient client, String path, FileStatus status) {
        this.client = client;
        this.path = path;
        this.size = status.size();
        int blockSize = Math.max(1, status.blockSize());
        this.chunkSize = (int) Math.min(blockSize, client.config().get(TarnKeys.CLIENT_IO_CHUNK));
        this.readahead = client.config().get(TarnKeys.CLIENT_READAHEAD);
        this.readaheadShortCircuit = client.config().get(TarnKeys.CLIENT_READAHEAD_SHORTCIRCUIT);
        // The file's id, followed when a rename moves the file to another namenode.
        FileRef file = new FileRef(status.fileId());
        this.locations = new BlockLocations(client.router(), file, size, blockSize);
        this.ranges = new RangeReader(client.data(), locations, path, size, blockSize, chunkSize);
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
        offersBuffers = false;
        ByteBuf buf = current();
        int b = buf.readUnsignedByte();
        copiedFromCurrent(1, 0);
        position++;
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        if (len == 0) {
            return 0;
        }
        if (position >= size) {
            return -1;
        }
        offersBuffers = false;
        int total = 0;
        while (len > 0 && position < size) {
            ByteBuf buf = currentOrNull(total);
            if (buf == null) {
                break;
            }
            int n = Math.min(len, buf.readableBytes());
            buf.readBytes(b, off, n);
            if (!copiedFromCurrent(n, total)) {
                break; // refused after bytes were read: they are returned, the next read meets the failure
            }
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

    /**
     * Reads into {@code dst} until it is full or the file ends; returns the bytes read or -1 at the
     * end. A direct {@code dst} may receive data straight from the socket, so when a read fails,
     * bytes of {@code dst} past the ones it returned may have been overwritten.
     */
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (position >= size) {
            return -1;
        }
        offersBuffers = dst.isDirect() && dst.remaining() >= chunkSize;
        int total = 0;
        while (dst.hasRemaining() && position < size) {
            int landed = receiveStraightInto(dst, total);
            if (landed > 0) {
                total += landed;
                continue;
            }
            if (landed < 0) {
                break; // failed after bytes were read: they are returned, the next read meets the failure
            }
            ByteBuf buf = currentOrNull(total);
            if (buf == null) {
                break;
            }
            int n = Math.min(dst.remaining(), buf.readableBytes());
            int limit = dst.limit();
            dst.limit(dst.position() + n);
            buf.readBytes(dst);
            dst.limit(limit);
            if (!copiedFromCurrent(n, total)) {
                dst.position(dst.position() - n);
                break;
            }
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
        Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        return ranges.read(pos, b, off, len);
    }

    /**
     * Reads up to {@code dst.remaining()} bytes at {@code pos} without moving the stream, returning at
     * once; the future completes with the number of bytes read (-1 when {@code pos} is at or past
     * the end), after they are in {@code dst} and its position has advanced by that number, as with
     * {@link AsynchronousFileChannel#read}. Leave {@code dst} alone until then.
     * Many reads may be in flight on one stream; they complete on transport threads.
     */
    public CompletableFuture<Integer> readAsync(long pos, ByteBuffer dst) {
        try {
            ensureOpen();
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        return ranges.readAsync(pos, dst);
    }

    /**
     * Blocking form of {@link #readAsync}: reads up to {@code dst.remaining()} bytes at {@code pos}
     * into {@code dst} without moving the stream; -1 at or past the end.
     */
    public int read(long pos, ByteBuffer dst) throws IOException {
        AnswerWaiter.refuseOnIoThread(); // before any request, so that no answer is left unread
        CompletableFuture<Integer> read = readAsync(pos, dst);
        try {
            return AnswerWaiter.await(read);
        } catch (InterruptedIOException e) {
            Landing.settle(read); // data may still be landing in dst: it is the caller's again only after
            throw e;
        }
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
                throw new EOFException("end of " + path + " at " + (pos + done) + " while reading " + len
                        + " bytes at " + pos);
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
        locations.forget();
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
        Pending pending = upcoming();
        buffers.ahead.pollFirst();
        // A short-circuit copy left to this reader becomes a view of the region it copies out of.
        Landing.Check check = pending.landing.takeView();
        CompletableFuture<ByteBuf> next = pending.data;
        try {
            buffers.current = AnswerWaiter.await(next);
            buffers.currentCheck = check;
            readingShortCircuit = pending.landing.wasGranted();
        } catch (IOException e) {
            next.thenAccept(ByteBuf::release); // an interrupted wait: the data still arrives
            dropReadahead();
            requestedUpTo = position;
            throw describe(e);
        } catch (IllegalStateException e) {
            buffers.ahead.addFirst(pending); // refused to wait on an I/O thread: nothing happened
            throw e;
        }
        fillReadahead();
        return buffers.current;
    }

    /**
     * Drops the current buffer, all read, and returns the request for the byte at the position
     * (requesting it and the read-ahead when needed), left at the head of the queue.
     */
    private Pending upcoming() {
        if (buffers.current != null) {
            buffers.current.release();
            buffers.current = null;
            buffers.currentCheck = null;
        }
        if (buffers.ahead.isEmpty()) {
            requestedUpTo = position;
        }
        fillReadahead();
        return buffers.ahead.peekFirst();
    }

    /**
     * Receives the next request's data straight into {@code dst} when the stream has nothing
     * unread in hand, {@code dst} is direct with room for all of that request, and its data has not
     * started to arrive: then returns its length, with {@code dst} and the position advanced. Returns
     * 0 when it did not (the data, if it came meanwhile, is then the current buffer), and -1 when the
     * request failed after {@code copied} bytes were read (as {@link #currentOrNull}).
     */
    private int receiveStraightInto(ByteBuffer dst, int copied) throws IOException {
        if (!dst.isDirect() || (buffers.current != null && buffers.current.isReadable())) {
            return 0;
        }
        Pending next = upcoming();
        if (next.data.isDone() || dst.remaining() < next.length) {
            return 0;
        }
        AnswerWaiter.refuseOnIoThread(); // before offering: nothing may land where nobody waits
        ByteBuf memory = Unpooled.wrappedBuffer(dst.slice(dst.position(), next.length)).clear();
        if (!next.landing.offer(memory)) {
            memory.release();
            return 0;
        }
        buffers.ahead.pollFirst();
        ByteBuf buf;
        try {
            buf = AnswerWaiter.await(next.data);
        } catch (IOException e) {
            if (!next.landing.withdraw()) {
                Landing.settle(next.data); // claimed: dst is the transport's until the read ends
            }
            next.data.thenAccept(ByteBuf::release);
            dropReadahead();
            requestedUpTo = position;
            if (copied > 0) {
                return -1;
            }
            throw describe(e);
        }
        readingShortCircuit = next.landing.wasGranted();
        if (next.landing.holds(buf)) {
            client.data().landed(next.length);
            buf.release();
            dst.position(dst.position() + next.length);
            position += next.length;
            fillReadahead();
            return next.length;
        }
        next.landing.withdraw();
        buffers.current = buf;
        fillReadahead();
        return 0;
    }

    /** Read-ahead requests in flight or waiting for this reader (for tests). */
    int requestsAhead() {
        return buffers.ahead.size();
    }

    /** Read-ahead requests whose short-circuit copy waits for this reader (for tests). */
    int parkedAhead() {
        int n = 0;
        for (Pending p : buffers.ahead) {
            n += p.landing.isParked() ? 1 : 0;
        }
        return n;
    }

    /**
     * Requests the read-ahead ({@code tarn.client.readahead}, or {@code
     * tarn.client.readahead.shortcircuit} while {@link #readingShortCircuit}) past the position, once at
     * most half of it is still requested (and always when nothing is): requests sent together share the
     * wake-ups of the client's I/O thread and the datanode's. One request per chunk read cost a
     * short-circuit reader a tenth of its time (docs/performance-history.md).
     */
    private void fillReadahead() {
        long window = Math.max(readingShortCircuit ? readaheadShortCircuit : readahead, 1);
        if (!buffers.ahead.isEmpty() && requestedUpTo - position > window / 2) {
            return;
        }
        long limit = Math.min(size, position + window);
        while (requestedUpTo < size && (buffers.ahead.isEmpty() || requestedUpTo < limit)) {
            int piece = ranges.pieceLength(requestedUpTo, size);
            Landing landing = new Landing(true);
            buffers.ahead.addLast(new Pending(ranges.request(requestedUpTo, piece, landing), landing, piece));
            requestedUpTo += piece;
        }
    }

    private void dropReadahead() {
        buffers.release();
    }

    /**
     * After {@code n} bytes were copied out of the current buffer: when it is a view of a region,
     * checks that the block still holds the grant's generation. A refusal drops what is in hand;
     * it is thrown when nothing was read before in this call ({@code copied}), else false is
     * returned and the bytes read before are the call's result (the next read meets the failure).
     */
    private boolean copiedFromCurrent(int n, int copied) throws IOException {
        Landing.Check check = buffers.currentCheck;
        if (check == null) {
            return true;
        }
        try {
            check.copied(n);
            return true;
        } catch (IOException e) {
            dropReadahead();
            requestedUpTo = position;
            if (copied > 0) {
                return false;
            }
            throw describe(e);
        }
    }

    /**
     * The buffers a stream holds: the chunk being read and the read-ahead. Kept apart from the
     * stream (and never pointing back at it) so that {@link #CLEANER} can free them when a stream
     * is dropped without {@link #close()}, as some callers do (Hadoop's TeraSort sampler, for one);
     * otherwise that direct memory would never return to the pool.
     */
    private static final class Buffers implements Runnable {
        final ArrayDeque<Pending> ahead = new ArrayDeque<>();
        ByteBuf current;
        /** Run after each copy out of {@link #current} when it is a view of a region, else null. */
        Landing.Check currentCheck;

        @Override
        public void run() {
            release();
        }

        void release() {
            if (current != null) {
                current.release();
                current = null;
                currentCheck = null;
            }
            Pending p;
            while ((p = ahead.pollFirst()) != null) {
                p.landing.dropParked();
                p.data.whenComplete((buf, e) -> {
                    if (buf != null) {
                        buf.release();
                    }
                });
            }
        }
    }

    /** One read-ahead request: its data, where the data lands, and its length. */
    private record Pending(CompletableFuture<ByteBuf> data, Landing landing, int length) {
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new TarnException(ErrorCode.FILE_CLOSED, "stream for " + path + " is closed");
        }
    }

    /** The same kind of exception, with the path in its message when the server did not name it. */
    private IOException describe(IOException e) {
        return ranges.describe(e);
    }
}
