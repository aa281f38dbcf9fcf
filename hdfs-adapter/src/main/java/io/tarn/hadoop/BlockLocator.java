package io.tarn.hadoop;

import io.tarn.client.TarnClient;
import io.tarn.common.fs.BlockRef;
import org.apache.hadoop.fs.BlockLocation;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Answers "where do these bytes live" for schedulers (MapReduce and Spark splits, locality):
 * one {@link BlockLocation} per Tarn block, naming the datanode that holds it.
 *
 * <p>Each file costs one {@link TarnClient#getBlocksAsync} call (thousands of blocks per round
 * trip), and the files of a listing page are located together, at most {@value #WINDOW} calls in
 * flight so that a listing does not take every call slot of the shared client.
 */
final class BlockLocator {
    /** Most getBlocks calls one locate keeps in flight. */
    static final int WINDOW = 128;

    private final TarnClient client;

    BlockLocator(TarnClient client) {
        this.client = client;
    }

    /**
     * The byte range {@code [start, start + len)} of one file, clipped to its size; a zero
     * {@code len} still asks for the block holding {@code start}, as HDFS answers.
     */
    record Span(long fileId, long fileSize, long blockSize, long start, long len) {
        int firstBlock() {
            return (int) (start / blockSize);
        }

        /** Blocks the range touches; 0 when it starts at or past the end. */
        int blockCount() {
            if (start >= fileSize || blockSize <= 0) {
                return 0;
            }
            long end = Math.min(fileSize, start + Math.max(len, 1));
            return (int) ((end - 1) / blockSize) - firstBlock() + 1;
        }

        /** The location of block {@code index} of the file, its length clipped to the file's size. */
        BlockLocation location(int index, BlockRef ref) {
            long offset = index * blockSize;
            long length = Math.min(blockSize, fileSize - offset);
            return new BlockLocation(new String[] {ref.address()}, new String[] {ref.host()}, offset, length);
        }
    }

    /** Locations of the blocks of one span, in file order. */
    BlockLocation[] locate(Span span) throws IOException {
        Located located = locateAll(List.of(span)).get(0);
        if (located.failure() != null) {
            throw located.failure();
        }
        return located.blocks();
    }

    /**
     * Locations for many spans at once. A span whose lookup failed (its file deleted meanwhile, say)
     * carries its exception instead of failing the others.
     */
    List<Located> locateAll(List<Span> spans) {
        List<Located> out = new ArrayList<>(spans.size());
        ArrayDeque<Pending> window = new ArrayDeque<>();
        for (Span span : spans) {
            Located located = new Located();
            out.add(located);
            int count = span.blockCount();
            if (count == 0) {
                continue;
            }
            if (window.size() == WINDOW) {
                window.pollFirst().complete();
            }
            window.addLast(new Pending(span, located, client.getBlocksAsync(span.fileId(), span.firstBlock(), count)));
        }
        while (!window.isEmpty()) {
            window.pollFirst().complete();
        }
        return out;
    }

    /** Block locations of one span, or why they could not be had. */
    static final class Located {
        private static final BlockLocation[] NONE = new BlockLocation[0];
        private BlockLocation[] blocks = NONE;
        private IOException failure;

        BlockLocation[] blocks() {
            return blocks;
        }

        IOException failure() {
            return failure;
        }
    }

    /**
     * One getBlocks call in flight and the span its answer fills; a file that ended early (it was
     * overwritten meanwhile, say) keeps only the blocks it has.
     */
    private record Pending(Span span, Located target, CompletableFuture<List<BlockRef>> refs) {
        void complete() {
            try {
                List<BlockRef> got = HadoopErrors.await(refs);
                BlockLocation[] blocks = new BlockLocation[got.size()];
                for (int i = 0; i < blocks.length; i++) {
                    blocks[i] = span.location(span.firstBlock() + i, got.get(i));
                }
                target.blocks = blocks;
            } catch (IOException e) {
                target.failure = e;
            }
        }
    }
}
