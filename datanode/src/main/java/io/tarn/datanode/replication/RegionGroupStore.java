package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.datanode.GenerationTable;
import io.tarn.datanode.RegionStore;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.StateImage;

import java.util.BitSet;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.ChunkedImage;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.RestorableImage;

/**
 * A group's block state in one region of this datanode's {@link RegionStore}: the group's slot
 * {@code s} is block {@code s} of the region, so a replica's bytes sit where the datanode's
 * ordinary read path (and short-circuit readers) find them, and the region's
 * {@link GenerationTable} slots carry the generations the group's writes bring.
 *
 * <p><b>Payload layout.</b> The payload of a block write is the block's generation (int32)
 * followed by exactly the bytes of the entry's range; the range never crosses a block boundary.
 * Applying a write always stores its bytes and raises the block's generation to at least the
 * write's: the leader refuses stale generations before it proposes, and applying unconditionally
 * keeps replicas identical even when two non-overlapping writes of different generations to one
 * block apply in different orders on different replicas.
 *
 * <p><b>Images are live.</b> {@link #capture} returns a handle on the region itself, not a copy:
 * whoever reads it (a transfer to a follower, the journal's checkpoint file), chunk by chunk
 * ({@link ChunkedImage}), gets each chunk's bytes as they are when it is read, possibly including
 * writes applied after the checkpoint, and chunks read at different moments. That is safe
 * because every write overwrites whole ranges and a replica restored from an image re-applies, in
 * log order, every entry above the checkpoint the image does not list as applied: it ends in the
 * same state, only passing through older bytes on the way (a replica catching up serves no reads
 * of data being written). It spares a copy of the whole region at every checkpoint.
 */
public final class RegionGroupStore implements BlockGroupStore {

    /** Bytes of the header at the start of a block write's payload: the block's generation. */
    public static final int PAYLOAD_HEADER = Integer.BYTES;

    private final RegionStore regions;
    private final GenerationTable generations;
    private final int region;
    private final int blockSize;
    private final int blocks;
    private final LiveImage live = new LiveImage();
    /** Restores into this store so far: a capture taken before the latest one no longer shows its checkpoint. */
    private volatile long restores;
    /** The number the next capture gets; writes applied now are marked with it (loop thread writes). */
    private volatile long epoch = 1;
    /** The epoch in which every page last changed at once (a restore, or this store's start). */
    private volatile long allChangedIn = 1;
    /** For each image page, the epoch of the last write to it. */
    private final int[] pageEpochs;

    /**
     * @param regions     the datanode's regions
     * @param generations the datanode's generation table
     * @param region      the region holding this group's replica
     * @param blockSize   bytes per block (the group's slot size)
     */
    public RegionGroupStore(RegionStore regions, GenerationTable generations, int region, int blockSize) {
        if (region < 0 || region >= regions.regionCount()) {
            throw new IllegalArgumentException("no region " + region + " in a store of " + regions.regionCount());
        }
        this.regions = regions;
        this.generations = generations;
        this.region = region;
        this.blockSize = blockSize;
        this.blocks = (int) (regions.regionSize() / blockSize);
        this.pageEpochs = new int[(int) ((imageBytes() + ChunkedImage.PAGE_BYTES - 1) / ChunkedImage.PAGE_BYTES)];
    }

    /**
     * Sets every block's generation to 0, for a replica that starts from nothing (its journal holds
     * neither entries nor a checkpoint): it then takes each block's generation from the writes it
     * applies, or from an image, as every other member did. Without it a region that held another
     * group's blocks before (a replacement member's, placed on a region freed earlier) keeps higher
     * generations, which the group's writes only raise, so the member refuses the group's reads of
     * those blocks ("the block now holds generation N") and its replica differs from the others.
     */
    void forgetGenerations() {
        for (int b = 0; b < blocks; b++) {
            generations.set(region, b, 0);
        }
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public int slots() {
        return blocks;
    }

    @Override
    public int region() {
        return region;
    }

    @Override
    public void apply(LogEntry entry) {
        BytesPayload payload = (BytesPayload) entry.command().payload();
        BlockRange range = entry.range();
        int block = (int) (range.first() / blockSize);
        if (range.end() > (long) (block + 1) * blockSize || block >= blocks
                || payload.length() != PAYLOAD_HEADER + range.count()) {
            throw new IllegalStateException("entry " + entry.index() + " does not fit one block of group slot "
                    + block + ": " + range + ", payload " + payload.length() + " bytes");
        }
        ByteBuf bytes = payload.asByteBuf();
        int generation = bytes.getInt(0);
        regions.write(region, range.first(), bytes, PAYLOAD_HEADER, range.count());
        generations.advance(region, block, generation);
        int e = (int) epoch;
        long at = headerBytes() + range.first();
        int last = (int) ((at + Math.max(0, range.count() - 1)) / ChunkedImage.PAGE_BYTES);
        for (int p = (int) (at / ChunkedImage.PAGE_BYTES); p <= last; p++) {
            pageEpochs[p] = e;
        }
        pageEpochs[(int) ((long) block * Integer.BYTES / ChunkedImage.PAGE_BYTES)] = e;
    }

    @Override
    public byte[] read(BlockRange range) {
        ByteBuf data = regions.read(region, range.first(), range.count());
        try {
            byte[] out = new byte[range.count()];
            data.getBytes(data.readerIndex(), out);
            return out;
        } finally {
            data.release();
        }
    }

    @Override
    public StateImage capture(CheckpointMeta meta) {
        long e = epoch;
        epoch = e + 1;
        return new Capture(restores, e);
    }

    /** The pages changed since capture {@code since}, or null when all may have (see {@link ChunkedImage}). */
    private BitSet changedSince(long since) {
        if (since <= 0 || allChangedIn > since) {
            return null;
        }
        BitSet changed = new BitSet(pageEpochs.length);
        for (int p = 0; p < pageEpochs.length; p++) {
            if (pageEpochs[p] > since) {
                changed.set(p);
            }
        }
        return changed;
    }

    /** The live image of this store (see the class comment), the one {@link #capture} returns. */
    public ChunkedImage liveImage() {
        return live;
    }

    /**
     * Makes this replica's generations and bytes those of the checkpoint's image, chunk by chunk
     * (no copy of the whole region is ever held). An image a store restored from already reads that
     * store from then on: restoring it into the same store again changes nothing.
     */
    @Override
    public void restore(Checkpoint checkpoint) {
        StateImage image = checkpoint.image();
        if (image == live || image instanceof Capture c && c.of(this)) {
            return;
        }
        if (!(image instanceof ChunkedImage chunked)) {
            throw new IllegalArgumentException("not an image of a region group: " + image.getClass().getName());
        }
        if (chunked instanceof RestorableImage r && r.restoredAs(live)) {
            return;
        }
        restores++; // before the first byte changes: a capture being saved stops showing its checkpoint
        allChangedIn = epoch;
        load(chunked);
        if (chunked instanceof RestorableImage r) {
            r.restored(live);
        }
    }

    @Override
    public int generation(int block) {
        return generations.get(region, block);
    }

    /** A handle on this store's region as it is whenever it is read. */
    private final class LiveImage implements ChunkedImage {
        @Override
        public long sizeBytes() {
            return imageBytes();
        }

        @Override
        public ByteBuf slice(long offset, int length) {
            ChunkedImage.checkRange(offset, length, imageBytes());
            long header = headerBytes();
            if (offset >= header) {
                return regions.read(region, offset - header, length);
            }
            int inHeader = (int) Math.min(length, header - offset);
            ByteBuf generationsPart = Unpooled.buffer(inHeader);
            for (long at = offset; at < offset + inHeader; at++) {
                int generation = generations.get(region, (int) (at / Integer.BYTES));
                generationsPart.writeByte(generation >>> (8 * (Integer.BYTES - 1 - (int) (at % Integer.BYTES))));
            }
            if (inHeader == length) {
                return generationsPart;
            }
            return Unpooled.wrappedBuffer(generationsPart, regions.read(region, 0, length - inHeader));
        }

        @Override
        public String toString() {
            return "live image of region " + region + " (" + imageBytes() + " bytes)";
        }
    }

    /**
     * What {@link #capture} returns: the live image, which stays this replica's state until a
     * checkpoint from elsewhere is restored into the store ({@link #current}). The journal saves such
     * an image in the background ({@link GroupJournal}).
     */
    private final class Capture implements ChunkedImage {
        private final long restoresAtCapture;
        private final long number;

        Capture(long restoresAtCapture, long number) {
            this.restoresAtCapture = restoresAtCapture;
            this.number = number;
        }

        @Override
        public long epoch() {
            return number;
        }

        @Override
        public BitSet changedSince(long since) {
            return RegionGroupStore.this.changedSince(since);
        }

        boolean of(RegionGroupStore store) {
            return store == RegionGroupStore.this;
        }

        @Override
        public long sizeBytes() {
            return live.sizeBytes();
        }

        @Override
        public ByteBuf slice(long offset, int length) {
            return live.slice(offset, length);
        }

        @Override
        public boolean ownState() {
            return true;
        }

        @Override
        public boolean current() {
            return restores == restoresAtCapture;
        }

        @Override
        public String toString() {
            return "capture of region " + region + " (" + imageBytes() + " bytes)";
        }
    }

    private long headerBytes() {
        return (long) blocks * Integer.BYTES;
    }

    /** Every image of the group: the generations of its blocks, then the region's bytes. */
    @Override
    public long imageBytes() {
        return headerBytes() + regions.regionSize();
    }

    /** Replaces generations and bytes with those of an image laid out as the class comment says, chunk by chunk. */
    private void load(ChunkedImage image) {
        if (image.sizeBytes() != imageBytes()) {
            throw new IllegalArgumentException("an image of " + image.sizeBytes() + " bytes does not fit a group of "
                    + blocks + " blocks (" + imageBytes() + " bytes)");
        }
        int header = (int) headerBytes();
        ByteBuf gens = image.slice(0, header);
        try {
            int at = gens.readerIndex();
            // Set, not raised: the image's generations are the group's. A region that held other blocks
            // before (a new member's) may remember higher ones; an image is never older than the replica
            // it replaces, so for any other member setting equals raising.
            for (int b = 0; b < blocks; b++) {
                generations.set(region, b, gens.getInt(at + b * Integer.BYTES));
            }
        } finally {
            gens.release();
        }
        long size = regions.regionSize();
        for (long offset = 0; offset < size; offset += ChunkedImage.CHUNK_BYTES) {
            int n = (int) Math.min(ChunkedImage.CHUNK_BYTES, size - offset);
            ByteBuf chunk = image.slice(header + offset, n);
            try {
                regions.write(region, offset, chunk, chunk.readerIndex(), n);
            } finally {
                chunk.release();
            }
        }
    }
}
