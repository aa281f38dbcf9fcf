package io.tarn.datanode;

import io.tarn.common.protocol.ShortCircuitProtocol;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.UUID;

/**
 * The generation each block of a datanode last accepted a write for: one int per block.
 *
 * <p>The namenode bumps a block's generation whenever it hands the block out again; the datanode
 * compares the generation a request carries with this table to refuse stale requests instead of
 * serving or overwriting another file's data. Entries only grow ({@link #advance}), lock-free, so
 * the I/O threads can check and update them concurrently. One table covers every region, whichever
 * namenode manages it; a namenode that forgot its blocks resets only its own regions
 * ({@link #reset(RegionShare)}).
 *
 * <p>A table is either {@linkplain #create memory-mapped from a side file} next to the region
 * files, so that it survives a datanode restart exactly as long as the data does, or
 * {@linkplain #inMemory held in direct memory} when the data itself is not persistent. The file is
 * only ever written through its mapping (never with {@code write(2)}), so it also works on
 * hugetlbfs; its size is rounded up to a 2 MiB huge page for the same reason (tmpfs does not
 * allocate the unused tail). It lives on the same host and never travels, so slots use the native
 * byte order. The layout is {@link ShortCircuitProtocol}'s: co-located clients map the file read-only
 * to check a block's generation after copying it.
 *
 * <pre>
 * file layout (64-byte header, then the slots):
 *   0  magic "TARNGEN1"[i64]     written last when created: a file without it is incomplete
 *   8  storageIdHigh[i64]  16 storageIdLow[i64]
 *  24  regionSize[i64]     32 regionCount[i32]  36 blockSize[i32]   40..63 reserved
 *  64  generation[i32] * (regionCount * regionSize / blockSize), region-major
 * </pre>
 */
public final class GenerationTable {
    // The layout is shared with co-located clients, which map the file to check generations.
    static final long MAGIC = ShortCircuitProtocol.GENERATIONS_MAGIC;
    private static final int MAGIC_OFFSET = ShortCircuitProtocol.GEN_MAGIC_OFFSET;
    private static final int ID_HIGH_OFFSET = ShortCircuitProtocol.GEN_ID_HIGH_OFFSET;
    private static final int ID_LOW_OFFSET = ShortCircuitProtocol.GEN_ID_LOW_OFFSET;
    private static final int REGION_SIZE_OFFSET = ShortCircuitProtocol.GEN_REGION_SIZE_OFFSET;
    private static final int REGION_COUNT_OFFSET = ShortCircuitProtocol.GEN_REGION_COUNT_OFFSET;
    private static final int BLOCK_SIZE_OFFSET = ShortCircuitProtocol.GEN_BLOCK_SIZE_OFFSET;
    /** Bytes before the first slot. */
    static final int HEADER_LENGTH = ShortCircuitProtocol.GEN_HEADER_LENGTH;
    /** Side files are sized in whole 2 MiB pages so that a hugetlbfs mount accepts them. */
    private static final long FILE_ALIGNMENT = 2L << 20;
    /** Most slots a table may hold: a mapping is limited to 2 GiB. */
    static final long MAX_SLOTS = (Integer.MAX_VALUE - HEADER_LENGTH - FILE_ALIGNMENT) / Integer.BYTES;

    private static final VarHandle SLOT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final ByteBuffer buffer;
    private final long regionSize;
    private final int regionCount;
    private final int blockSize;
    private final int blocksPerRegion;

    private GenerationTable(ByteBuffer buffer, long regionSize, int regionCount, int blockSize) {
        this.buffer = buffer;
        this.regionSize = regionSize;
        this.regionCount = regionCount;
        this.blockSize = blockSize;
        this.blocksPerRegion = (int) (regionSize / blockSize);
    }

    /**
     * Creates a zeroed table file (replacing any previous one atomically, so a crash leaves either
     * the old or the new table) and maps it.
     */
    public static GenerationTable create(Path file, UUID storageId, long regionSize, int regionCount, int blockSize)
            throws IOException {
        long slots = slots(regionSize, regionCount, blockSize);
        long size = roundUp(HEADER_LENGTH + slots * Integer.BYTES);
        Path fresh = file.resolveSibling(file.getFileName() + ".new");
        Files.deleteIfExists(fresh);
        ByteBuffer buf;
        try (FileChannel ch = FileChannel.open(fresh, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE), OwnerOnly.file())) {
            // A freshly extended file reads as zeros: every generation starts at 0.
            buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, size).order(ByteOrder.nativeOrder());
        }
        buf.putLong(ID_HIGH_OFFSET, storageId.getMostSignificantBits());
        buf.putLong(ID_LOW_OFFSET, storageId.getLeastSignificantBits());
        buf.putLong(REGION_SIZE_OFFSET, regionSize);
        buf.putInt(REGION_COUNT_OFFSET, regionCount);
        buf.putInt(BLOCK_SIZE_OFFSET, blockSize);
        VarHandle.storeStoreFence();
        buf.putLong(MAGIC_OFFSET, MAGIC);
        Files.move(fresh, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return new GenerationTable(buf, regionSize, regionCount, blockSize);
    }

    /**
     * Maps an existing table file written by {@link #create} for the same storage id and region
     * geometry; its block size is whatever it was created with.
     *
     * @throws IOException naming the mismatch when the file is missing, incomplete or was made for
     *                     other storage
     */
    public static GenerationTable open(Path file, UUID storageId, long regionSize, int regionCount)
            throws IOException {
        long fileSize = Files.size(file);
        if (fileSize < HEADER_LENGTH || fileSize > Integer.MAX_VALUE) {
            throw new IOException("generation table " + file + " has an impossible size of " + fileSize + " bytes");
        }
        ByteBuffer buf;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, fileSize).order(ByteOrder.nativeOrder());
        }
        if (buf.getLong(MAGIC_OFFSET) != MAGIC) {
            throw new IOException("generation table " + file + " is incomplete (no magic number)");
        }
        UUID id = new UUID(buf.getLong(ID_HIGH_OFFSET), buf.getLong(ID_LOW_OFFSET));
        if (!id.equals(storageId)) {
            throw new IOException("generation table " + file + " belongs to storage " + id + ", not " + storageId);
        }
        long storedRegionSize = buf.getLong(REGION_SIZE_OFFSET);
        int storedRegionCount = buf.getInt(REGION_COUNT_OFFSET);
        if (storedRegionSize != regionSize || storedRegionCount != regionCount) {
            throw new IOException("generation table " + file + " describes " + storedRegionCount + " regions of "
                    + storedRegionSize + " bytes, not " + regionCount + " of " + regionSize);
        }
        int blockSize = buf.getInt(BLOCK_SIZE_OFFSET);
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1 || regionSize % blockSize != 0) {
            throw new IOException("generation table " + file + " holds an invalid block size " + blockSize);
        }
        long slots = regionCount * (regionSize / blockSize);
        if (HEADER_LENGTH + slots * Integer.BYTES > fileSize) {
            throw new IOException("generation table " + file + " is truncated: " + fileSize + " bytes for "
                    + slots + " blocks");
        }
        return new GenerationTable(buf, regionSize, regionCount, blockSize);
    }

    /** A zeroed table in direct memory, for regions that do not survive the process either. */
    public static GenerationTable inMemory(long regionSize, int regionCount, int blockSize) {
        long slots = slots(regionSize, regionCount, blockSize);
        ByteBuffer buf = ByteBuffer.allocateDirect((int) (HEADER_LENGTH + slots * Integer.BYTES))
                .order(ByteOrder.nativeOrder());
        return new GenerationTable(buf, regionSize, regionCount, blockSize);
    }

    private static long slots(long regionSize, int regionCount, int blockSize) {
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1 || regionSize % blockSize != 0) {
            throw new IllegalArgumentException("block size " + blockSize
                    + " must be a power of two dividing the region size " + regionSize);
        }
        long slots = regionCount * (regionSize / blockSize);
        if (slots > MAX_SLOTS) {
            throw new IllegalArgumentException(regionCount + " regions of " + regionSize + " bytes hold " + slots
                    + " blocks of " + blockSize + " bytes; a generation table holds at most " + MAX_SLOTS
                    + ": use larger blocks or less capacity per datanode");
        }
        return slots;
    }

    private static long roundUp(long size) {
        return (size + FILE_ALIGNMENT - 1) / FILE_ALIGNMENT * FILE_ALIGNMENT;
    }

    private int slotOffset(int region, int block) {
        if (region < 0 || region >= regionCount || block < 0 || block >= blocksPerRegion) {
            throw new IndexOutOfBoundsException("region " + region + " block " + block + " outside " + regionCount
                    + " regions of " + blocksPerRegion + " blocks");
        }
        return HEADER_LENGTH + (region * blocksPerRegion + block) * Integer.BYTES;
    }

    /** The stored generation of a block (0 when never written). */
    public int get(int region, int block) {
        return (int) SLOT.getVolatile(buffer, slotOffset(region, block));
    }

    /**
     * Raises a block's stored generation to {@code generation} unless the stored one is newer.
     * Stores the caller makes after a true answer are ordered after the raise.
     *
     * @return false when the stored generation is newer (the caller is stale); true when the block
     *         now holds {@code generation}
     */
    public boolean advance(int region, int block, int generation) {
        int at = slotOffset(region, block);
        while (true) {
            int stored = (int) SLOT.getVolatile(buffer, at);
            if (generation < stored) {
                return false;
            }
            if (generation == stored || SLOT.compareAndSet(buffer, at, stored, generation)) {
                // The caller's data stores must not become visible before the new generation: a
                // short-circuit reader that sees any of them must also see the generation move.
                VarHandle.storeStoreFence();
                return true;
            }
        }
    }

    /**
     * Sets a block's stored generation to {@code generation}, lower or higher: for a replicated
     * group's region restored from an image, whose generations are the group's (a region that held
     * other blocks before may have had higher ones, which would make the group's blocks look stale).
     */
    public void set(int region, int block, int generation) {
        SLOT.setVolatile(buffer, slotOffset(region, block), generation);
        VarHandle.storeStoreFence();
    }

    /** Forgets every generation (all blocks back to 0), for the only namenode, which forgot the blocks. */
    public void reset() {
        reset(new RegionShare(0, 1, regionCount));
    }

    /**
     * Forgets the generations of one namenode's regions (their blocks back to 0) when that namenode
     * forgot its blocks; the other namenodes' regions keep theirs, so stale requests for them stay
     * refused.
     */
    public void reset(RegionShare share) {
        for (int region = share.firstRegion(); region < regionCount; region += share.stride()) {
            int start = HEADER_LENGTH + region * blocksPerRegion * Integer.BYTES;
            int end = start + blocksPerRegion * Integer.BYTES;
            for (int at = start; at < end; at += Integer.BYTES) {
                SLOT.setVolatile(buffer, at, 0);
            }
        }
    }

    /** The block size the table is laid out for. */
    public int blockSize() {
        return blockSize;
    }

    public int blocksPerRegion() {
        return blocksPerRegion;
    }

    public int regionCount() {
        return regionCount;
    }

    public long regionSize() {
        return regionSize;
    }
}
