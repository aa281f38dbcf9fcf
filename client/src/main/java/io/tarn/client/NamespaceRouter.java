package io.tarn.client;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail.MovedTo;
import io.tarn.common.error.ErrorDetail.Redirect;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Sends each namespace request of one client to the namenode that should answer it, and follows the
 * answers that send it elsewhere (docs/partitioning.md).
 *
 * <p>Which namenode owns a path, a file id or directory changes is {@link Namenodes}' partition map;
 * on top of it the router follows RETRY (tried again through {@link Backoff}), AT_COORDINATOR (a
 * directory change the path's namenode hands to partition 0: resent to the namenode the answer
 * names), MOVED (a file renamed to a name another namenode owns: the answer carries its new id, which
 * the stream's {@link FileRef} takes, and the call goes to the new namenode) and WRONG_PARTITION (resent
 * once to the namenode the answer names, should this client's map differ from the namenodes').
 * Directory creation goes to partition 0 from the start ({@link #atCoordinator}).
 *
 * <p>Called by {@link TarnClient} and {@link PartitionedNamespace} for namespace operations and by the
 * streams for the calls about their file ({@link #readBlock}, {@link #writeBlocks}, {@link #closeFile},
 * ...). With one namenode the calls by file id go straight to it, with nothing allocated beyond the
 * call itself. Thread-safe.
 */
final class NamespaceRouter {
    private final Namenodes namenodes;
    private final Backoff backoff;
    private final long clientId;
    private final String clientHost;

    NamespaceRouter(Namenodes namenodes, Backoff backoff, long clientId, String clientHost) {
        this.namenodes = namenodes;
        this.backoff = backoff;
        this.clientId = clientId;
        this.clientHost = clientHost;
    }

    /** A call about a file by its id at the namenode that owns the id. */
    @FunctionalInterface
    interface ByIdCall<T> {
        CompletableFuture<T> call(NamenodeClient nn, long fileId);
    }

    /** Every namenode in partition order, or null before the map is known (see {@link Namenodes#known}). */
    NamenodeClient[] known() {
        return namenodes.known();
    }

    /** Every namenode in partition order, once the map is known. */
    CompletableFuture<NamenodeClient[]> all() {
        return namenodes.all();
    }

    /** True once the map is known and names more than one namenode. */
    boolean several() {
        NamenodeClient[] nns = namenodes.known();
        return nns != null && nns.length > 1;
    }

    /**
     * {@code call} at the namenode owning {@code path}, again while it answers RETRY; once at the
     * namenode a WRONG_PARTITION answer names instead (a map that differs from the namenodes' own).
     */
    <T> CompletableFuture<T> atOwner(String path, Function<NamenodeClient, CompletableFuture<T>> call) {
        return backoff.retrying(() -> namenodes.byPath(path, call), cause -> {
            Redirect to = redirect(cause, ErrorCode.WRONG_PARTITION);
            return to == null ? null : namenodes.byPartition(to.partition(), call);
        });
    }

    /** The namenode an answer of {@code code} names to ask instead, or null. */
    private static Redirect redirect(Throwable cause, ErrorCode code) {
        return Failures.hasCode(cause, code) && cause instanceof TarnException t && t.detail() instanceof Redirect r
                ? r : null;
    }

    /** {@code call} at partition 0, which sequences directory operations (creation among them). */
    <T> CompletableFuture<T> atCoordinator(Function<NamenodeClient, CompletableFuture<T>> call) {
        return namenodes.coordinator(call);
    }

    /**
     * {@code call} at the namenode owning {@code path}; at partition 0 when that namenode answers
     * AT_COORDINATOR (the path is a directory, whose changes partition 0 coordinates); all of it
     * again while the answer is RETRY.
     */
    <T> CompletableFuture<T> atOwnerOrCoordinator(String path, Function<NamenodeClient, CompletableFuture<T>> call) {
        return backoff.retrying(() -> ownerOrCoordinator(path, call), null);
    }

    private <T> CompletableFuture<T> ownerOrCoordinator(String path,
                                                        Function<NamenodeClient, CompletableFuture<T>> call) {
        return namenodes.byPath(path, call).handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = Failures.unwrap(e);
            if (Failures.hasCode(cause, ErrorCode.AT_COORDINATOR)) {
                Redirect to = redirect(cause, ErrorCode.AT_COORDINATOR);
                return to != null ? namenodes.byPartition(to.partition(), call) : namenodes.coordinator(call);
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    /**
     * {@code call} with the file's id at the namenode owning it. With several namenodes, a file
     * that is being renamed to another namenode's name answers RETRY for a moment (tried again), and
     * one that moved answers MOVED with its new id (a namenode that does not say it is asked with
     * WHERE_MOVED): the stream's reference takes it, and the call goes to the new namenode. A file
     * that moves more than {@value #MAX_MOVES} times during one call fails it with MOVED.
     */
    <T> CompletableFuture<T> following(FileRef f, ByIdCall<T> call) {
        NamenodeClient[] nns = namenodes.known();
        if (nns != null && nns.length == 1) {
            return call.call(nns[0], f.id()); // one namenode: files never move
        }
        return following(f, call, 0);
    }

    /** Moves one call follows at most: a file renamed back and forth faster than calls reach it. */
    static final int MAX_MOVES = 16;

    private <T> CompletableFuture<T> following(FileRef f, ByIdCall<T> call, int moves) {
        long[] used = new long[1]; // the id the last attempt used
        return backoff.retrying(() -> {
            long id = f.id();
            used[0] = id;
            return namenodes.byId(id, nn -> call.call(nn, id));
        }, cause -> Failures.hasCode(cause, ErrorCode.MOVED) ? afterMove(f, call, moves, used[0], cause) : null);
    }

    /** The call again at the namenode a MOVED answer (to the call with id {@code old}) sent it to. */
    private <T> CompletableFuture<T> afterMove(FileRef f, ByIdCall<T> call, int moves, long old, Throwable moved) {
        if (moves >= MAX_MOVES) {
            return CompletableFuture.failedFuture(new TarnException(ErrorCode.MOVED, "file "
                    + FileIds.format(f.id()) + " moved " + MAX_MOVES + " times between namenodes while one "
                    + "call followed it (renamed back and forth?); " + moved.getMessage()));
        }
        if (f.id() != old) {
            return following(f, call, moves + 1); // another call of the stream followed the file already
        }
        if (moved instanceof TarnException t && t.detail() instanceof MovedTo to) {
            f.movedTo(old, to.fileId());
            return following(f, call, moves + 1);
        }
        return namenodes.byId(old, nn -> nn.whereMoved(old)).thenCompose(newId -> {
            f.movedTo(old, newId);
            return following(f, call, moves + 1);
        });
    }

    // ------------------------------------------------------------------ calls about a file by its id

    /** Where block {@code index} of the file lives, with a read token. */
    CompletableFuture<BlockRef> readBlock(FileRef f, int index) {
        return following(f, (nn, id) -> nn.getBlock(id, index, false, clientId, clientHost, -1));
    }

    /** Read locations of up to {@code count} blocks from {@code first} on: one page, fewer at the file's end. */
    CompletableFuture<List<BlockRef>> readBlocks(FileRef f, int first, int count) {
        return following(f, (nn, id) -> nn.getBlocks(id, first, count));
    }

    /**
     * Read locations of up to {@code count} blocks from {@code first} on (fewer at the file's end),
     * page after page, one round trip each; a file that moves meanwhile is followed.
     */
    CompletableFuture<List<BlockRef>> readAllBlocks(FileRef f, int first, int count) {
        return blocksFrom(f, first, count, new ArrayList<>());
    }

    private CompletableFuture<List<BlockRef>> blocksFrom(FileRef f, int first, int count, List<BlockRef> acc) {
        return following(f, (nn, id) -> nn.getBlocks(id, first + acc.size(), count - acc.size()))
                .thenCompose(page -> {
                    acc.addAll(page);
                    if (page.isEmpty() || acc.size() >= count) {
                        return CompletableFuture.completedFuture(acc);
                    }
                    return blocksFrom(f, first, count, acc);
                });
    }

    /** Write location of block {@code index}, allocating it when the file lacks it. */
    CompletableFuture<BlockRef> writeBlock(FileRef f, int index, long durableSize) {
        return following(f, (nn, id) -> nn.getBlock(id, index, true, clientId, clientHost, durableSize));
    }

    /**
     * Write locations of {@code count} blocks from {@code first} on, allocating those the file lacks:
     * at least one, fewer than {@code count} when storage ran out part-way.
     */
    CompletableFuture<List<BlockRef>> writeBlocks(FileRef f, int first, int count, long durableSize) {
        return following(f, (nn, id) -> nn.allocateBlocks(id, first, count, clientId, clientHost, durableSize));
    }

    /**
     * A new write location for block {@code index}, none of which was written, in place of the one on
     * datanode {@code datanodeId}, which the writer could not reach (the namenode stops allocating there).
     */
    CompletableFuture<BlockRef> replaceBlock(FileRef f, int index, int datanodeId) {
        return following(f, (nn, id) -> nn.replaceBlock(id, index, datanodeId, clientId, clientHost));
    }

    /** Publishes {@code durableSize} bytes of a file being written (hsync). */
    CompletableFuture<FileStatus> syncFile(FileRef f, long durableSize) {
        return following(f, (nn, id) -> nn.sync(id, clientId, durableSize));
    }

    /** Completes a file being written at {@code size} bytes and releases its lease. */
    CompletableFuture<FileStatus> closeFile(FileRef f, long size) {
        return following(f, (nn, id) -> nn.close(id, clientId, size));
    }
}
