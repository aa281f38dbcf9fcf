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
 * whoever reads it (a follower's streaming copy, the journal's checkpoint file) gets the bytes as
 * they are at that moment, possibly including writes applied after the checkpoint. That is safe
 * because every write overwrites whole ranges and a replica restored from an image re-applies, in
 * log order, every entry above the checkpoint the image does not list as applied: it ends in the
 * same state, only passing through older bytes on the way (a replica catching up serves no reads
 * of data being written). It spares a copy of the whole region at every checkpoint.
 */
public final class RegionGroupStore implements GroupStore {

    /** Bytes of the header at the start of a block write's payload: the block's generation. */
    public static final int PAYLOAD_HEADER = Integer.BYTES;

    private final RegionStore regions;
    private final GenerationTable generations;
    private final int region;
    private final int blockSize;
    private final int blocks;

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
        return new LiveImage();
    }

    @Override
    public void restore(Checkpoint checkpoint) {
        if (checkpoint.image() instanceof ImageBytes live) {
            live.copyInto(this);
        } else {
            load(ByteImage.of(checkpoint.image()).asByteBuf());
        }
    }

    @Override
    public int generation(int block) {
        return generations.get(region, block);
    }

    /**
     * A live image of a group's replica, read as bytes: the generations of every block (int32
     * each), then the region's bytes. Sent to a follower and saved by the journal as a
     * {@link ByteImage} copy of those bytes ({@link ByteImage#of}), which {@link #restore} loads.
     */
    public interface ImageBytes extends StateImage {
        /** Appends the image to {@code out}. */
        void writeTo(ByteBuf out);

        /** Makes {@code store}'s replica equal to this image. */
        void copyInto(RegionGroupStore store);
    }

    /** A handle on this store's region as it is whenever it is read. */
    private final class LiveImage implements ImageBytes {
        @Override
        public long sizeBytes() {
            return (long) blocks * Integer.BYTES + regions.regionSize();
        }

        @Override
        public void writeTo(ByteBuf out) {
            for (int b = 0; b < blocks; b++) {
                out.writeInt(generations.get(region, b));
            }
            ByteBuf data = regions.read(region, 0, (int) regions.regionSize());
            try {
                out.writeBytes(data, data.readerIndex(), data.readableBytes());
            } finally {
                data.release();
            }
        }

        @Override
        public void copyInto(RegionGroupStore store) {
            if (store == RegionGroupStore.this) {
                return;
            }
            ByteBuf buf = Unpooled.buffer((int) sizeBytes());
            try {
                writeTo(buf);
                store.load(buf);
            } finally {
                buf.release();
            }
        }
    }

    /** Replaces generations and bytes with those of an image laid out as {@link ImageBytes} writes. */
    void load(ByteBuf image) {
        long expected = (long) blocks * Integer.BYTES + regions.regionSize();
        if (image.readableBytes() != expected) {
            throw new IllegalArgumentException("an image of " + image.readableBytes() + " bytes does not fit a group "
                    + "of " + blocks + " blocks (" + expected + " bytes)");
        }
        int at = image.readerIndex();
        for (int b = 0; b < blocks; b++) {
            generations.advance(region, b, image.getInt(at + b * Integer.BYTES));
        }
        regions.write(region, 0, image, at + blocks * Integer.BYTES, (int) regions.regionSize());
    }
}
