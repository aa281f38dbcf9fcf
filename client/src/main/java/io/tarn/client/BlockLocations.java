package io.tarn.client;

import io.tarn.common.fs.BlockRef;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The locations of one open file's blocks as its reader needs them, asked of the namenode a page at
 * a time.
 *
 * <p>Locations are asked for {@link #REFS_PER_CALL} blocks of the file at a time (one GET_BLOCKS),
 * and, for a reader going from block to block, the next such page once it is half-way through the
 * last one, so a sequential reader of 1 MiB blocks makes one namenode call per 16 MiB instead of one
 * per block. A block the page did not name (the file grew since it was opened, or the page failed,
 * say because a later block is on a dead datanode) is asked for alone, as is one whose lookup failed
 * before, and one whose token a datanode refused ({@link #renew}: tokens expire).
 *
 * <p>One per {@link TarnInputStream}, used by its {@link RangeReader} for sequential and positional
 * reads alike; the calls go through the {@link NamespaceRouter}, which follows the file when a rename
 * moves it to another namenode. Thread-safe (positional reads may run concurrently): every method
 * holds this object's lock, which nothing else takes, for a few list operations and no waiting.
 */
final class BlockLocations {
    /** Block locations asked of the namenode in one call (see the class comment). */
    static final int REFS_PER_CALL = 16;

    private final NamespaceRouter router;
    private final FileRef file;
    /** Blocks the file had when opened (at least one, so that a file that grew is still read). */
    private final long blocksInFile;
    /** By block index: the location asked for, or null when none was asked yet. Guarded by this. */
    private final ArrayList<CompletableFuture<BlockRef>> refs = new ArrayList<>();

    /**
     * @param size      the file's size when it was opened
     * @param blockSize its block size (at least 1)
     */
    BlockLocations(NamespaceRouter router, FileRef file, long size, int blockSize) {
        this.router = router;
        this.file = file;
        this.blocksInFile = Math.max(1, (size + blockSize - 1) / blockSize);
    }

    /** The location of block {@code index}, asked for as the class comment says. */
    synchronized CompletableFuture<BlockRef> of(int index) {
        CompletableFuture<BlockRef> f = index < refs.size() ? refs.get(index) : null;
        if (f == null) {
            askPage(index);
            f = refs.get(index);
        } else if (f.isCompletedExceptionally()) {
            f = router.readBlock(file, index);
            refs.set(index, f);
        }
        int ahead = index + REFS_PER_CALL / 2;
        boolean sequential = index > 0 && refs.get(index - 1) != null;
        if (sequential && ahead < blocksInFile && (ahead >= refs.size() || refs.get(ahead) == null)) {
            askPage(ahead);
        }
        return f;
    }

    /**
     * The location of block {@code index} asked for again, after a datanode refused the token of
     * {@code stale} (it expired): one new call however many reads of the block were refused.
     */
    synchronized CompletableFuture<BlockRef> renew(int index, BlockRef stale) {
        while (refs.size() <= index) {
            refs.add(null);
        }
        CompletableFuture<BlockRef> f = refs.get(index);
        if (f == null || f.isCompletedExceptionally() || f.isDone() && f.join() == stale) {
            f = router.readBlock(file, index);
            refs.set(index, f);
        }
        return f;
    }

    /** Forgets every location; the next read asks again (for a stream that releases what it holds). */
    synchronized void forget() {
        refs.clear();
    }

    /** Asks for the locations of the blocks from {@code first} on whose location is not asked yet. */
    private void askPage(int first) {
        int count = (int) Math.max(1, Math.min(REFS_PER_CALL, blocksInFile - first));
        while (refs.size() < first + count) {
            refs.add(null);
        }
        while (count > 1 && refs.get(first + count - 1) != null) {
            count--;
        }
        if (count == 1) {
            refs.set(first, router.readBlock(file, first));
            return;
        }
        CompletableFuture<List<BlockRef>> page = router.readBlocks(file, first, count);
        for (int i = 0; i < count; i++) {
            if (refs.get(first + i) != null) {
                continue;
            }
            int k = i;
            refs.set(first + k, page.handle((blocks, e) -> e == null && k < blocks.size()
                    ? CompletableFuture.completedFuture(blocks.get(k))
                    : router.readBlock(file, first + k)).thenCompose(x -> x));
        }
    }
}
