package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.rpc.RpcClient.ResponseTarget;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads byte ranges of one open file from its datanodes: cuts a range into data requests of at most
 * a chunk ({@code tarn.client.io.chunk}) within one block, sends each to its block's location
 * ({@link BlockLocations}), and checks that each answer holds the bytes asked for.
 *
 * <p>One per {@link TarnInputStream}: the stream's read-ahead sends its requests through
 * {@link #request}, and the stream's positional reads ({@link TarnInputStream#read(long, byte[], int,
 * int)}, {@link TarnInputStream#readAsync}) are made here, after the stream checked that it is open.
 * Guarantees: a positional read never moves the stream; every buffer a request returns is released
 * once, here or by the caller it is handed to; errors name the file. Thread-safe: positional reads
 * may run concurrently with each other and with the stream's sequential reads.
 */
final class RangeReader {
    private final DataClient data;
    private final BlockLocations locations;
    private final String path;
    private final long size;
    private final int blockSize;
    private final int chunkSize;

    /**
     * @param size      the file's size as of opening: reads end there
     * @param blockSize the file's block size (at least 1)
     * @param chunkSize the longest data request (at most a block)
     */
    RangeReader(DataClient data, BlockLocations locations, String path, long size, int blockSize, int chunkSize) {
        this.data = data;
        this.locations = locations;
        this.path = path;
        this.size = size;
        this.blockSize = blockSize;
        this.chunkSize = chunkSize;
    }

    /** Bytes of one data request starting at {@code pos}: at most a chunk, within one block, not past {@code end}. */
    int pieceLength(long pos, long end) {
        return (int) Math.min(end - pos, Math.min(chunkSize, blockSize - (pos % blockSize)));
    }

    /** The {@code length} bytes at {@code pos} (one piece), received into a buffer of the transport's. */
    CompletableFuture<ByteBuf> request(long pos, int length) {
        return request(pos, length, DataClient.RECEIVE);
    }

    /** The {@code length} bytes at {@code pos} (one piece), received where {@code target} says. */
    CompletableFuture<ByteBuf> request(long pos, int length, ResponseTarget target) {
        int index = (int) (pos / blockSize);
        int offset = (int) (pos % blockSize);
        return locations.of(index).thenCompose(r -> data.read(r, offset, length, target).exceptionallyCompose(e ->
                Failures.tokenRefused(Failures.unwrap(e))
                        ? Failures.orFirst(locations.renew(index, r), e)
                                .thenCompose(fresh -> data.read(fresh, offset, length, target))
                        : CompletableFuture.failedFuture(e))).thenApply(buf -> {
            if (buf.readableBytes() != length) {
                int got = buf.readableBytes();
                buf.release();
                throw new CompletionException(new TarnException(ErrorCode.MALFORMED_REQUEST,
                        "datanode returned " + got + " bytes instead of " + length));
            }
            return buf;
        });
    }

    /** {@link TarnInputStream#read(long, byte[], int, int)} of an open stream, arguments checked. */
    int read(long pos, byte[] b, int off, int len) throws IOException {
        if (pos < 0) {
            throw new EOFException("negative position " + pos + " in " + path);
        }
        if (pos >= size) {
            return len == 0 ? 0 : -1;
        }
        AnswerWaiter.refuseOnIoThread(); // before any request, so that no answer is left unread
        int n = (int) Math.min(len, size - pos);
        List<CompletableFuture<ByteBuf>> parts = new ArrayList<>();
        long p = pos;
        long end = pos + n;
        while (p < end) {
            int piece = pieceLength(p, end);
            parts.add(request(p, piece));
            p += piece;
        }
        int at = off;
        IOException failure = null;
        for (CompletableFuture<ByteBuf> part : parts) {
            try {
                ByteBuf buf = AnswerWaiter.await(part);
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

    /** {@link TarnInputStream#readAsync} of an open stream. */
    CompletableFuture<Integer> readAsync(long pos, ByteBuffer dst) {
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
            Landing landing = new Landing();
            if (dst.isDirect()) {
                landing.offer(Unpooled.wrappedBuffer(dst.slice(at, piece)).clear());
            }
            parts.add(request(p, piece, landing).thenAccept(buf -> {
                try {
                    if (landing.holds(buf)) {
                        data.landed(piece);
                    } else {
                        buf.getBytes(buf.readerIndex(), dst.duplicate().position(at).limit(at + piece));
                    }
                } finally {
                    buf.release();
                    landing.withdraw();
                }
            }));
            p += piece;
        }
        CompletableFuture<Void> all = parts.size() == 1 ? parts.get(0)
                : CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
        return all.handle((v, e) -> {
            if (e != null) {
                Throwable cause = Failures.unwrap(e);
                IOException io = cause instanceof IOException ? describe((IOException) cause)
                        : Failures.asIOException(cause);
                throw new CompletionException(io);
            }
            dst.position(base + n);
            return n;
        });
    }

    /** The same kind of exception, with the path in its message when the server did not name it. */
    IOException describe(IOException e) {
        return Failures.naming(e, "reading", path);
    }
}
