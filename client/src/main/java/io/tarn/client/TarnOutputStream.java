package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * Writes one file, block by block, with data in flight while the caller goes on writing.
 *
 * <p>Bytes collect in an off-heap chunk ({@code tarn.client.io.chunk}, at most a block); a full
 * chunk is sent to its block's datanode without waiting, up to {@code tarn.client.write.behind}
 * bytes in flight. The location of the next block is fetched while the current one is being
 * written.
 *
 * <p>Durability, from weakest to strongest: {@link #flush()} sends buffered bytes to their datanode
 * without waiting; {@link #hflush()} waits until every byte written so far is stored in datanode
 * memory; {@link #hsync()} also tells the namenode that length, so new readers see it and it
 * survives the writer's death (lease recovery keeps it); {@link #close()} publishes the final size
 * and releases the lease. Bytes stored in DRAM are lost if their datanode's host loses power:
 * durability across machines comes with replication. A failed write fails every later call with
 * the same error. Not thread-safe, like any {@link OutputStream}.
 */
public final class TarnOutputStream extends OutputStream {
    private final TarnClient client;
    private final String path;
    /** The file's id, followed when a rename moves the file to another namenode. */
    private final FileRef file;
    private final int blockSize;
    private final int chunkSize;
    private final long writeBehind;
    private final ArrayDeque<Pending> inflight = new ArrayDeque<>();
    private long inflightBytes;

    private ByteBuf buffer;
    private long position;
    /** Bytes handed to datanode writes so far. */
    private long sent;
    private int refIndex = -1;
    private CompletableFuture<BlockRef> ref;
    private CompletableFuture<BlockRef> nextRef;
    /**
     * Completes when every write sent so far is stored. Writes to different datanodes finish in
     * any order, so the newest write's own future says nothing about the ones before it.
     */
    private CompletableFuture<Void> allSent = CompletableFuture.completedFuture(null);
    private volatile Throwable failure;
    private boolean closed;

    /** A stream that writes from {@code status.size()} on: 0 for a new file, the end for an append. */
    TarnOutputStream(TarnClient client, String path, FileStatus status) {
        this.client = client;
        this.path = path;
        this.file = new FileRef(status.fileId());
        this.blockSize = status.blockSize();
        this.position = status.size();
        this.sent = status.size();
        this.chunkSize = (int) Math.min(blockSize, client.config().get(TarnKeys.CLIENT_IO_CHUNK));
        this.writeBehind = Math.max(chunkSize, client.config().get(TarnKeys.CLIENT_WRITE_BEHIND));
        client.opened(this);
    }

    @Override
    public void write(int b) throws IOException {
        ensureWritable();
        buffer().writeByte(b);
        position++;
        if (!buffer.isWritable()) {
            sendBuffer();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        ensureWritable();
        while (len > 0) {
            ByteBuf buf = buffer();
            int n = Math.min(len, buf.writableBytes());
            buf.writeBytes(b, off, n);
            off += n;
            len -= n;
            position += n;
            if (!buf.isWritable()) {
                sendBuffer();
            }
        }
    }

    /** Writes the remaining bytes of {@code src}; like {@link #write(byte[], int, int)} for NIO buffers. */
    public void write(ByteBuffer src) throws IOException {
        ensureWritable();
        while (src.hasRemaining()) {
            ByteBuf buf = buffer();
            int n = Math.min(src.remaining(), buf.writableBytes());
            int limit = src.limit();
            src.limit(src.position() + n);
            buf.writeBytes(src);
            src.limit(limit);
            position += n;
            if (!buf.isWritable()) {
                sendBuffer();
            }
        }
    }

    /**
     * Writes {@code src} and returns a future that completes when those bytes (and all before them)
     * are stored on their datanodes. Waits only when {@code tarn.client.write.behind} is exceeded.
     */
    public CompletableFuture<Void> writeAsync(ByteBuffer src) throws IOException {
        write(src);
        if (buffer != null && buffer.isReadable()) {
            sendBuffer();
        }
        return allSent;
    }

    /** The file's length once everything written so far is stored: bytes written, plus the size an append started at. */
    public long position() {
        return position;
    }

    /** Sends buffered bytes to their datanode without waiting for them to be stored. */
    @Override
    public void flush() throws IOException {
        ensureWritable();
        if (buffer != null && buffer.isReadable()) {
            sendBuffer();
        }
    }

    /** Waits until every byte written so far is stored in its datanode's memory. */
    public void hflush() throws IOException {
        flush();
        while (!inflight.isEmpty()) {
            awaitOldest();
        }
        throwIfFailed();
    }

    /**
     * Like {@link #hflush()}, then publishes the length to the namenode: readers opening the file
     * now see every byte written so far, and they survive this writer's death.
     */
    public void hsync() throws IOException {
        hflush();
        TarnClient.await(client.syncFile(file, position));
    }

    /** Stores the remaining bytes, then publishes the file's size and releases the lease. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            hflush();
            TarnClient.await(client.closeFile(file, position));
        } finally {
            closed = true;
            release();
            client.closed(this);
        }
    }

    /** Drops buffered data without publishing the file (its lease expires on the namenode). */
    void abandon() {
        closed = true;
        release();
    }

    private void release() {
        if (buffer != null) {
            buffer.release();
            buffer = null;
        }
        if (nextRef != null) {
            nextRef.cancel(false);
        }
    }

    private ByteBuf buffer() {
        if (buffer == null) {
            int inBlock = (int) (position % blockSize);
            buffer = ByteBufAllocator.DEFAULT.directBuffer(Math.min(chunkSize, blockSize - inBlock));
        }
        return buffer;
    }

    private void sendBuffer() throws IOException {
        ByteBuf data = buffer;
        buffer = null;
        int n = data.readableBytes();
        long start = position - n;
        int index = (int) (start / blockSize);
        int offset = (int) (start % blockSize);
        CompletableFuture<BlockRef> block = block(index);
        CompletableFuture<Void> written = block.handle((r, e) -> {
            if (e != null) {
                data.release();
                return CompletableFuture.<Void>failedFuture(e);
            }
            return client.data().write(r, offset, data);
        }).thenCompose(f -> f);
        written.whenComplete((v, e) -> {
            if (e != null && failure == null) {
                failure = e;
            }
        });
        inflight.addLast(new Pending(written, start, n));
        allSent = allSent.isDone() && !allSent.isCompletedExceptionally() ? written
                : CompletableFuture.allOf(allSent, written);
        sent = start + n;
        inflightBytes += n;
        while (inflightBytes > writeBehind) {
            awaitOldest();
        }
        throwIfFailed();
    }

    /** The location of block {@code index}, asking for the following block's ahead of time. */
    private CompletableFuture<BlockRef> block(int index) {
        if (index != refIndex) {
            if (index == refIndex + 1 && nextRef != null) {
                ref = nextRef;
            } else {
                ref = client.writeBlock(file, index, durableSize());
            }
            refIndex = index;
            nextRef = null;
        }
        // Ask for the next block once this one is half written, so its location is known when
        // needed. A file that ends at this block's end leaves the extra block unused; the namenode
        // frees blocks past the final size at close.
        if (nextRef == null && position - (long) index * blockSize >= blockSize / 2) {
            nextRef = client.writeBlock(file, index + 1, durableSize());
        }
        return ref;
    }

    private void awaitOldest() throws IOException {
        Pending p = inflight.pollFirst();
        inflightBytes -= p.bytes;
        try {
            TarnClient.await(p.future);
        } catch (IOException e) {
            failure = e;
            throw describe(e);
        }
    }

    private void ensureWritable() throws IOException {
        if (closed) {
            throw new TarnException(ErrorCode.FILE_CLOSED, "stream for " + path + " is closed");
        }
        throwIfFailed();
    }

    private void throwIfFailed() throws IOException {
        Throwable f = failure;
        if (f != null) {
            throw describe(TarnClient.asIOException(f));
        }
    }

    /** The same kind of exception, with the path in its message when the server did not name it. */
    private IOException describe(IOException e) {
        if (e instanceof io.tarn.common.error.TarnError && !String.valueOf(e.getMessage()).contains(path)) {
            IOException named = TarnException.of(((io.tarn.common.error.TarnError) e).code(),
                    "writing " + path + ": " + e.getMessage());
            named.initCause(e);
            return named;
        }
        return e;
    }

    /**
     * Bytes known stored: everything before the oldest write still in flight (or every byte sent
     * when none is). Finished writes at the head of the queue are retired on the way.
     */
    private long durableSize() {
        Pending head;
        while ((head = inflight.peekFirst()) != null && head.future.isDone() && !head.future.isCompletedExceptionally()) {
            inflight.pollFirst();
            inflightBytes -= head.bytes;
        }
        if (head != null) {
            return head.start;
        }
        return sent;
    }

    private record Pending(CompletableFuture<Void> future, long start, int bytes) {
    }
}
