package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.rpc.IoThreads;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes one file, block by block, with data in flight while the caller goes on writing.
 *
 * <p>Bytes collect in an off-heap chunk ({@code tarn.client.io.chunk}, at most a block); a full
 * chunk is sent to its block's datanode without waiting, up to {@code tarn.client.write.behind}
 * bytes in flight. The location of the next block is fetched while the current one is being
 * written.
 *
 * <p>A client that copies short-circuit to a co-located datanode asks for each chunk's grant when
 * the chunk starts and, once a grant has come back, for the grants (and blocks) of the chunks
 * ahead: up to {@code tarn.client.write.behind.shortcircuit} when the caller writes whole chunks at
 * a time (grants hold no memory, so this goes further than the write-behind), the next one or two
 * chunks otherwise. {@link #write(ByteBuffer)} and {@link #write(byte[], int, int)} of
 * {@value #DIRECT_MIN} bytes or more then copy straight into the block in the datanode's region
 * (waiting for the chunk's grant if it is not there yet) instead of into the chunk; smaller writes
 * gather in the chunk, which goes to the region before the next straight copy or when full.
 *
 * <p>Durability, from weakest to strongest: {@link #flush()} sends buffered bytes to their datanode
 * without waiting; {@link #hflush()} waits until every byte written so far is stored in datanode
 * memory; {@link #hsync()} also tells the namenode that length, so new readers see it and it
 * survives the writer's death (lease recovery keeps it); {@link #close()} publishes the final size
 * and releases the lease. Bytes stored in DRAM are lost if their datanode's host loses power:
 * durability across machines comes with replication. A block whose datanode cannot be reached
 * before any of its bytes was stored there is replaced by one elsewhere (the namenode then avoids
 * that datanode for every writer), without the caller noticing; once a datanode acknowledged bytes
 * of a block, losing it fails the write. A failed write fails every later call with the same
 * error. Not thread-safe, like any {@link OutputStream}.
 */
public final class TarnOutputStream extends OutputStream {
    private final TarnClient client;
    /** Where the calls about the file go ({@link TarnClient#router()}). */
    private final NamespaceRouter router;
    private final String path;
    /** The file's id, followed when a rename moves the file to another namenode. */
    private final FileRef file;
    private final int blockSize;
    private final int chunkSize;
    private final long writeBehind;
    /** How far ahead short-circuit grants are asked ({@code tarn.client.write.behind.shortcircuit}). */
    private final long grantAhead;
    /** Blocks asked for in one namenode call past the first: twice the write-behind's worth, 1 to 16. */
    private final int blocksPerCall;
    private static final int MAX_BLOCKS_PER_CALL = 16;
    /**
     * Writes of byte arrays this long or longer go straight into a granted region; shorter ones
     * gather in the chunk first (a copy per call into the region costs more than they carry).
     */
    private static final int DIRECT_MIN = 4096;
    private final ArrayDeque<Pending> inflight = new ArrayDeque<>();
    private long inflightBytes;

    private ByteBuf buffer;
    /** The short-circuit grant asked for the chunk being filled, or null (a TCP client). */
    private CompletableFuture<LocalStorage.WriteRange> grant;
    /** Grants asked ahead for the chunks expected to follow, in order, up to {@link #grantAhead}. */
    private final ArrayDeque<Ahead> grantsAhead = new ArrayDeque<>();
    /** Set once the caller writes whole chunks at a time: only then are grants asked ahead. */
    private boolean streaming;
    /**
     * Set once a grant came back with a range (the datanode is on this host and lets this client
     * in): before that, nothing is asked ahead, so writers to other hosts' datanodes ask for no
     * blocks early.
     */
    private boolean granting;
    /** The chunk's block range once bytes go straight into it (its first {@link #inRegion} bytes are there). */
    private LocalStorage.WriteRange direct;
    /** Bytes of the chunk already in the region (the buffer's own bytes start here). */
    private int inRegion;
    private long position;
    /** Bytes handed to datanode writes so far. */
    private long sent;
    /** Locations of the block being written and of the blocks asked for ahead of it, by index. */
    private final TreeMap<Integer, CompletableFuture<BlockRef>> blocks = new TreeMap<>();
    /**
     * Completes when every write sent so far is stored. Writes to different datanodes finish in
     * any order, so the newest write's own future says nothing about the ones before it.
     */
    private CompletableFuture<Void> allSent = CompletableFuture.completedFuture(null);
    /**
     * Blocks with a write stored: those are never replaced (their datanode holds acknowledged
     * bytes). Written by the I/O threads that complete the writes.
     */
    private final Set<Integer> storedBlocks = ConcurrentHashMap.newKeySet();
    /**
     * Replacements of blocks whose datanode the writer could not reach before storing anything in
     * them (REPLACE_BLOCK), by block index; every write of such a block goes there.
     */
    private final ConcurrentHashMap<Integer, CompletableFuture<BlockRef>> replaced = new ConcurrentHashMap<>();
    /**
     * Blocks asked for again after a datanode refused their token (it expired), by index: later
     * writes of the block use the new location. Written from any thread.
     */
    private final ConcurrentHashMap<Integer, CompletableFuture<BlockRef>> renewed = new ConcurrentHashMap<>();
    private volatile Throwable failure;
    private boolean closed;

    /** A stream that writes from {@code status.size()} on: 0 for a new file, the end for an append. */
    TarnOutputStream(TarnClient client, String path, FileStatus status) {
        this.client = client;
        this.router = client.router();
        this.path = path;
        this.file = new FileRef(status.fileId());
        this.blockSize = status.blockSize();
        this.position = status.size();
        this.sent = status.size();
        this.chunkSize = (int) Math.min(blockSize, client.config().get(TarnKeys.CLIENT_IO_CHUNK));
        this.writeBehind = Math.max(chunkSize, client.config().get(TarnKeys.CLIENT_WRITE_BEHIND));
        this.grantAhead = client.config().get(TarnKeys.CLIENT_WRITE_BEHIND_SHORTCIRCUIT);
        this.blocksPerCall = (int) Math.max(1, Math.min(MAX_BLOCKS_PER_CALL, 2 * writeBehind / blockSize));
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
        Objects.checkFromIndexSize(off, len, b.length);
        ensureWritable();
        while (len > 0) {
            ByteBuf buf = buffer();
            int n = Math.min(len, buf.writableBytes());
            LocalStorage.WriteRange range = n >= DIRECT_MIN ? granted(true) : null;
            if (range != null) {
                // Straight into the region, as write(ByteBuffer) does, rather than into the chunk
                // and from there into the region (on the client's I/O thread when the grant comes
                // after the chunk is full). This waits for the chunk's grant at most once.
                toRegion(range, buf, ByteBuffer.wrap(b, off, n));
            } else {
                buf.writeBytes(b, off, n);
            }
            off += n;
            len -= n;
            position += n;
            if (!buf.isWritable()) {
                sendBuffer();
            }
        }
    }

    /**
     * Copies what the chunk {@code buf} still holds, then {@code src}'s remaining bytes, into its
     * granted block range; {@code buf} then counts them without holding them.
     */
    private void toRegion(LocalStorage.WriteRange range, ByteBuf buf, ByteBuffer src) throws IOException {
        int n = src.remaining();
        try {
            copyBuffered(range, buf);
            range.copy(buf.writerIndex(), src);
        } catch (TarnException e) {
            failure = e;
            throw describe(e);
        }
        buf.writerIndex(buf.writerIndex() + n);
        inRegion = buf.writerIndex();
        client.data().landed(n);
    }

    /** Writes the remaining bytes of {@code src}; like {@link #write(byte[], int, int)} for NIO buffers. */
    public void write(ByteBuffer src) throws IOException {
        ensureWritable();
        streaming |= src.remaining() >= chunkSize;
        while (src.hasRemaining()) {
            ByteBuf buf = buffer();
            int n = Math.min(src.remaining(), buf.writableBytes());
            int limit = src.limit();
            src.limit(src.position() + n);
            LocalStorage.WriteRange range = granted(true);
            if (range != null) {
                try {
                    toRegion(range, buf, src);
                } finally {
                    src.limit(limit);
                }
            } else {
                buf.writeBytes(src);
                src.limit(limit);
            }
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

    /**
     * The file's length once everything written so far is stored: bytes written, plus the size an
     * append started at.
     */
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
        client.answers().awaitAnswer(() -> router.syncFile(file, position));
    }

    /** Stores the remaining bytes, then publishes the file's size and releases the lease. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            hflush();
            client.answers().awaitAnswer(() -> router.closeFile(file, position));
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
        grant = null;
        grantsAhead.clear();
        direct = null;
        inRegion = 0;
        if (buffer != null) {
            buffer.release();
            buffer = null;
        }
        blocks.values().forEach(f -> f.cancel(false));
    }

    private ByteBuf buffer() {
        if (buffer == null) {
            int inBlock = (int) (position % blockSize);
            int length = Math.min(chunkSize, blockSize - inBlock);
            buffer = ByteBufAllocator.DEFAULT.directBuffer(length);
            if (client.data().shortCircuits()) {
                block((int) (position / blockSize));
                grant = takeGrant(position, length);
                if (granting) {
                    // A writer of smaller pieces keeps the next chunk or two asked for, so that its
                    // grant is there when the chunk starts; one of whole chunks, much further.
                    askAhead(position + length, streaming ? grantAhead : 2L * chunkSize);
                }
            }
        }
        return buffer;
    }

    /** The grant of the chunk starting at {@code start}: the one asked ahead for it, or asked now. */
    private CompletableFuture<LocalStorage.WriteRange> takeGrant(long start, int length) {
        Ahead next = grantsAhead.peekFirst();
        if (next != null && next.start() == start && next.length() == length) {
            grantsAhead.pollFirst();
            // One that failed ahead (the block could not be had then) is asked again now.
            return next.grant().isCompletedExceptionally() ? askGrant(start, length) : next.grant();
        }
        grantsAhead.clear(); // the writer flushed part of a chunk: the chunks ahead start elsewhere now
        return askGrant(start, length);
    }

    /**
     * Asks for the grants of the chunks from {@code from} on, up to {@code window} past it, so
     * that each is there by the time the caller's bytes for it come. Their blocks are asked for
     * too; those past the file's final size are freed by the namenode at close.
     */
    private void askAhead(long from, long window) {
        Ahead last = grantsAhead.peekLast();
        long next = last == null ? from : last.start() + last.length();
        if (next >= from + window / 2) {
            return; // topped up in batches, so that the calls of one batch share their wake-ups
        }
        while (next < from + window) {
            int length = Math.min(chunkSize, blockSize - (int) (next % blockSize));
            grantsAhead.addLast(new Ahead(next, length, askGrant(next, length)));
            next += length;
        }
    }

    private CompletableFuture<LocalStorage.WriteRange> askGrant(long start, int length) {
        int offset = (int) (start % blockSize);
        return blockAhead((int) (start / blockSize))
                .thenCompose(r -> client.data().grantWrite(r, offset, length));
    }

    /** Bytes of the chunk being filled that wait in its buffer rather than in the region (for tests). */
    int bufferedBytes() {
        return buffer == null ? 0 : buffer.writerIndex() - inRegion;
    }

    /** Bytes of chunks whose short-circuit grants are asked ahead of the one being filled (for tests). */
    long grantedAhead() {
        long n = 0;
        for (Ahead a : grantsAhead) {
            n += a.length();
        }
        return n;
    }

    /** A short-circuit grant asked ahead for the chunk of {@code length} bytes at {@code start}. */
    private record Ahead(long start, int length, CompletableFuture<LocalStorage.WriteRange> grant) {
    }

    /**
     * The chunk's block range when its bytes may be copied straight there, else null. With
     * {@code wait}, waits for a grant still on its way (it was asked a chunk ahead, so this is the
     * first chunk's round trip, or none), except on an I/O thread; a grant that failed or was
     * refused leaves the chunk to {@link #store}, which reports the failure as any write does.
     */
    private LocalStorage.WriteRange granted(boolean wait) {
        // A grant that failed is not awaited again (writes of arrays may ask once per few KiB):
        // the chunk is left to store(), which reports the failure.
        if (direct == null && grant != null && !grant.isCompletedExceptionally() && (grant.isDone()
                || wait && !IoThreads.onIoThread())) {
            try {
                direct = AnswerWaiter.await(grant);
                granting |= direct != null;
            } catch (IOException | RuntimeException e) {
                grant = grant.isDone() ? grant : null;
            }
        }
        return direct;
    }

    /** Copies the chunk's bytes still in its buffer to the region. */
    private void copyBuffered(LocalStorage.WriteRange range, ByteBuf buf) throws TarnException {
        if (buf.writerIndex() > inRegion) {
            range.copy(inRegion, buf.slice(inRegion, buf.writerIndex() - inRegion));
            inRegion = buf.writerIndex();
        }
    }

    private void sendBuffer() throws IOException {
        ByteBuf data = buffer;
        buffer = null;
        CompletableFuture<LocalStorage.WriteRange> asked = grant;
        LocalStorage.WriteRange range = granted(false);
        grant = null;
        direct = null;
        int n = data.readableBytes();
        long start = position - n;
        int index = (int) (start / blockSize);
        int offset = (int) (start % blockSize);
        CompletableFuture<Void> written;
        if (range != null) {
            // Granted: the bytes still buffered go to the region now, on this thread.
            try {
                copyBuffered(range, data);
            } catch (TarnException e) {
                failure = e;
                throw describe(e);
            } finally {
                data.release();
                inRegion = 0;
            }
            client.data().copiedShortCircuit(n);
            written = CompletableFuture.completedFuture(null);
        } else {
            written = store(index, block(index), asked, offset, data);
        }
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

    /**
     * Stores a chunk of block {@code index} once its location is known: through its grant when one
     * was asked, else as {@link DataClient#write} decides. Takes ownership of {@code data}. When the
     * block's datanode cannot be reached and no write to that block was stored yet, the chunk goes
     * to a replacement block elsewhere ({@link #elsewhere}); if one was, the write fails, since bytes
     * the datanode acknowledged are gone with it.
     */
    private CompletableFuture<Void> store(int index, CompletableFuture<BlockRef> allocation,
            CompletableFuture<LocalStorage.WriteRange> asked, int offset, ByteBuf data) {
        CompletableFuture<BlockRef> fresh = renewed.get(index);
        CompletableFuture<BlockRef> block = fresh != null ? fresh : allocation;
        return block.handle((allocated, e) -> {
            if (e != null) {
                data.release();
                return CompletableFuture.<Void>failedFuture(e);
            }
            CompletableFuture<BlockRef> moved = replaced.get(index);
            if (moved != null && moved.isDone() && !moved.isCompletedExceptionally()) {
                return moved.thenCompose(r -> client.data().write(r, offset, data)).thenRun(() -> stored(index));
            }
            // A duplicate for the first attempt (its own indexes, one more reference), so that the
            // bytes are still whole for a second attempt elsewhere.
            CompletableFuture<Void> first;
            try {
                ByteBuf attempt = data.retainedDuplicate();
                first = asked != null && fresh == null ? client.data().write(allocated, offset, attempt, asked)
                        : client.data().write(allocated, offset, attempt);
            } catch (RuntimeException x) {
                first = CompletableFuture.failedFuture(x);
            }
            return first.handle((v, x) -> {
                if (x == null) {
                    data.release();
                    stored(index);
                    return CompletableFuture.<Void>completedFuture(null);
                }
                if (Failures.tokenRefused(Failures.unwrap(x))) {
                    return Failures.orFirst(renew(index, allocated), x).handle((r, y) -> {
                        if (y != null) {
                            data.release();
                            return CompletableFuture.<Void>failedFuture(y);
                        }
                        return client.data().write(r, offset, data).thenRun(() -> stored(index));
                    }).thenCompose(f -> f);
                }
                return elsewhere(index, allocated, offset, data, x);
            }).thenCompose(f -> f);
        }).thenCompose(f -> f);
    }

    /**
     * Block {@code index} asked for again after a datanode refused the token of {@code stale}
     * (tokens expire): the same block with a new token, one call however many writes were refused.
     */
    private CompletableFuture<BlockRef> renew(int index, BlockRef stale) {
        return renewed.compute(index, (i, f) -> f != null && !f.isCompletedExceptionally()
                && !(f.isDone() && f.join() == stale) ? f : router.writeBlock(file, i, -1));
    }

    /**
     * After a failed write of {@code data} to block {@code index} at {@code allocated}: the same
     * write to a replacement block when the datanode was unreachable (CONNECTION_LOST, TIMEOUT) and
     * nothing of the block was stored yet; otherwise the failure, named. Takes ownership of {@code data}.
     */
    private CompletableFuture<Void> elsewhere(int index, BlockRef allocated, int offset, ByteBuf data,
                                              Throwable failure) {
        Throwable cause = Failures.unwrap(failure);
        boolean unreachable = Failures.hasCode(cause, ErrorCode.CONNECTION_LOST)
                || Failures.hasCode(cause, ErrorCode.TIMEOUT);
        if (!unreachable || allocated.group() != null) {
            // A replicated block is not moved: its write already went to every member of its group
            // (GroupCalls), and the namenode refuses to replace such a block; the group's error says
            // what is wrong.
            data.release();
            return CompletableFuture.failedFuture(cause);
        }
        if (storedBlocks.contains(index)) {
            data.release();
            return CompletableFuture.failedFuture(new TarnException(ErrorCode.DATANODE_DEAD, "writing " + path
                    + ": datanode " + allocated.host() + ":" + allocated.port() + " became unreachable after it had "
                    + "stored bytes of block " + index + "; they are lost with it, so the file cannot be completed "
                    + "(" + cause.getMessage() + "); write the file again"));
        }
        CompletableFuture<BlockRef> replacement = replaced.computeIfAbsent(index,
                i -> router.replaceBlock(file, i, allocated.datanodeId()));
        return replacement.thenCompose(r -> {
            if (r.datanodeId() == allocated.datanodeId() && r.host().equals(allocated.host())) {
                data.release();
                return CompletableFuture.<Void>failedFuture(cause); // nowhere else to go
            }
            return client.data().write(r, offset, data);
        }).whenComplete((v, x) -> {
            if (x == null) {
                stored(index);
            }
        });
    }

    /** Records that a write to block {@code index} was stored, so that it is never replaced (any thread). */
    private void stored(int index) {
        if (!storedBlocks.contains(index)) {
            storedBlocks.add(index);
        }
    }

    /**
     * The location of block {@code index}, the one being written (forgetting those before it),
     * asking for the following block's ahead of time.
     */
    private CompletableFuture<BlockRef> block(int index) {
        blocks.headMap(index).clear();
        CompletableFuture<BlockRef> ref = blockAhead(index);
        // Ask for the next block once this one is half written, so its location is known when
        // needed. A file that ends at this block's end leaves the extra block unused; the namenode
        // frees blocks past the final size at close.
        if (position - (long) index * blockSize >= blockSize / 2) {
            blockAhead(index + 1);
        }
        return ref;
    }

    /**
     * The location of block {@code index}, asked for once (again, alone, when the last answer was an
     * error). Past the first block, the blocks are asked for {@link #blocksPerCall} at a time (one
     * ALLOCATE_BLOCKS): a file that outgrows its first block is likely to go on, and one namenode
     * call per block cost a round trip and two wake-ups per megabyte. Blocks asked for past the
     * final size are freed by the namenode at close; a block the answer did not name (storage ran
     * out part-way) fails with NO_SPACE, and is asked for again when the writer gets there.
     */
    private CompletableFuture<BlockRef> blockAhead(int index) {
        CompletableFuture<BlockRef> known = blocks.get(index);
        if (known != null && !known.isCompletedExceptionally()) {
            return known;
        }
        if (index == 0 || known != null || blocksPerCall == 1) {
            known = router.writeBlock(file, index, durableSize());
            blocks.put(index, known);
            return known;
        }
        int count = blocksPerCall;
        while (count > 1 && blocks.containsKey(index + count - 1)) {
            count--;
        }
        CompletableFuture<List<BlockRef>> page = router.writeBlocks(file, index, count, durableSize());
        for (int i = 0; i < count; i++) {
            int k = i;
            blocks.putIfAbsent(index + k, page.thenApply(refs -> {
                if (k < refs.size()) {
                    return refs.get(k);
                }
                throw new CompletionException(TarnException.of(ErrorCode.NO_SPACE, "writing " + path
                        + ": no storage left for block " + (index + k) + " when it was asked for ahead"));
            }));
        }
        return blocks.get(index);
    }

    private void awaitOldest() throws IOException {
        Pending p = inflight.pollFirst();
        inflightBytes -= p.bytes;
        try {
            AnswerWaiter.await(p.future);
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
            throw Failures.again(describe(Failures.asIOException(f)));
        }
    }

    /** The same kind of exception, with the path in its message when the server did not name it. */
    private IOException describe(IOException e) {
        return Failures.naming(e, "writing", path);
    }

    /**
     * Bytes known stored: everything before the oldest write still in flight (or every byte sent
     * when none is). Finished writes at the head of the queue are retired on the way.
     */
    private long durableSize() {
        Pending head;
        while ((head = inflight.peekFirst()) != null && head.future.isDone()
                && !head.future.isCompletedExceptionally()) {
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
