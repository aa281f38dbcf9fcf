package io.tarn.hadoop;

import io.tarn.client.TarnClient;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import org.apache.hadoop.fs.BlockLocation;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Answers "where do these bytes live" for schedulers (MapReduce and Spark splits, locality):
 * one {@link BlockLocation} per Tarn block, naming the datanode that holds it, or every member of the
 * block group of a file of replication 3.
 *
 * <p>Each file costs one {@link TarnClient#getBlocksAsync} call (thousands of blocks per round
 * trip), and the files of a listing page are located together, at most {@value #WINDOW} calls in
 * flight so that a listing does not take every call slot of the shared client.
 */
final class BlockLocator {
    /** Most getBlocks calls one locate keeps in flight. */
    static final int WINDOW = 128;
    /** The rack HDFS reports for every host when no rack mapping is configured. */
    static final String DEFAULT_RACK = "/default-rack";

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
            return replicas(ref, offset, length);
        }
    }

    /**
     * Where the block {@code ref} names lives: its one datanode, or for a block of a group every
     * member the namenode did not count down (as HDFS leaves dead datanodes out; all of them if it
     * counted every one down), the one it names first (the member it believes leads, the first a
     * reader tries) and then the others in member order. Names are {@code host:port}, topology paths
     * {@code /default-rack/host:port} as HDFS gives them without a rack mapping (Tarn knows no racks).
     */
    static BlockLocation replicas(BlockRef ref, long offset, long length) {
        BlockGroup group = ref.group();
        if (group == null) {
            return new BlockLocation(new String[] {ref.address()}, new String[] {ref.host()},
                    new String[] {topologyPath(ref.address())}, offset, length);
        }
        List<GroupMember> members = group.members();
        int all = members.size();
        boolean someUp = Integer.bitCount(ref.downMembers()) < all;
        List<GroupMember> up = new ArrayList<>(all);
        GroupMember first = null;
        for (int k = 0; k < all; k++) {
            GroupMember m = members.get(k);
            if (someUp && ref.memberDown(k)) {
                continue;
            }
            if (m.memberId() == group.leaderMemberId() && first == null) {
                first = m;
            } else {
                up.add(m);
            }
        }
        if (first != null) {
            up.add(0, first);
        }
        int n = up.size();
        String[] names = new String[n];
        String[] hosts = new String[n];
        String[] paths = new String[n];
        int i = 0;
        for (GroupMember m : up) {
            i = put(m, names, hosts, paths, i);
        }
        return new BlockLocation(names, hosts, paths, offset, length);
    }

    private static int put(GroupMember m, String[] names, String[] hosts, String[] paths, int i) {
        names[i] = m.address();
        hosts[i] = m.host();
        paths[i] = topologyPath(names[i]);
        return i + 1;
    }

    private static String topologyPath(String name) {
        return DEFAULT_RACK + "/" + name;
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
