package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.common.protocol.ShortCircuitProtocol.Grant;
import io.tarn.rpc.RpcClient;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A co-located DRAM datanode's storage as this client maps it for short-circuit access
 * ({@link ShortCircuitProtocol}): its generation table, read-only, and its region files, mapped
 * when first used.
 *
 * <p>The datanode checks every request before this class copies anything; what is left here is the
 * check only the copier can make. A read copies the bytes out of the region, then reads the
 * block's generation again: when it moved past the request's, the block was handed to another file
 * while being copied, and the bytes are dropped (STALE_GENERATION), which is what a TCP read would
 * have answered once the new generation arrived. A write checks the generation just before copying
 * in, so a writer whose block was taken over since the datanode's check does not overwrite the new
 * owner's data (the same window a TCP write has between its check and its copy). Generations only
 * grow, and writers raise them before writing, so the checks cannot miss a reuse.
 *
 * <p>Thread-safe: mappings are published through an atomic array; copies use independent views.
 */
final class LocalStorage {
    private static final VarHandle SLOT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final UUID storageId;
    private final Path directory;
    private final long regionSize;
    private final int blockSize;
    private final int blocksPerRegion;
    private final ByteBuffer generations;
    private final AtomicReferenceArray<ByteBuffer> regions;
    /** False once a region file could only be opened for reading: writes then go over TCP. */
    private volatile boolean writable = true;

    private LocalStorage(Grant grant, ByteBuffer generations, int regionCount) {
        this.storageId = grant.storageId();
        this.directory = Path.of(grant.directory());
        this.regionSize = grant.regionSize();
        this.blockSize = grant.blockSize();
        this.blocksPerRegion = (int) (regionSize / blockSize);
        this.generations = generations;
        this.regions = new AtomicReferenceArray<>(regionCount);
    }

    /** True when the granting datanode runs on this host (the same kernel, since the same boot). */
    static boolean onThisHost(Grant grant) {
        String ours = ShortCircuitProtocol.bootId();
        return !ours.isEmpty() && ours.equals(grant.bootId());
    }

    /**
     * Maps the storage a grant from a datanode {@linkplain #onThisHost on this host} names, after
     * checking that the files are the ones the grant describes.
     *
     * @throws IOException saying why this client cannot use it (then it uses TCP)
     */
    static LocalStorage open(Grant grant) throws IOException {
        Path table = Path.of(grant.directory()).resolve(ShortCircuitProtocol.GENERATIONS_FILE);
        ByteBuffer map;
        try (FileChannel ch = FileChannel.open(table, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < ShortCircuitProtocol.GEN_HEADER_LENGTH || size > Integer.MAX_VALUE) {
                throw new IOException(table + " has an impossible size of " + size + " bytes");
            }
            map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size).order(ByteOrder.nativeOrder());
        }
        UUID id = new UUID(map.getLong(ShortCircuitProtocol.GEN_ID_HIGH_OFFSET),
                map.getLong(ShortCircuitProtocol.GEN_ID_LOW_OFFSET));
        if (map.getLong(ShortCircuitProtocol.GEN_MAGIC_OFFSET) != ShortCircuitProtocol.GENERATIONS_MAGIC
                || !id.equals(grant.storageId())) {
            throw new IOException(table + " is not the table of storage " + grant.storageId()
                    + " (another host's directory at the same path?)");
        }
        int regionCount = map.getInt(ShortCircuitProtocol.GEN_REGION_COUNT_OFFSET);
        if (map.getLong(ShortCircuitProtocol.GEN_REGION_SIZE_OFFSET) != grant.regionSize()
                || map.getInt(ShortCircuitProtocol.GEN_BLOCK_SIZE_OFFSET) != grant.blockSize()
                || regionCount <= 0
                || ShortCircuitProtocol.generationSlot(regionCount, (int) (grant.regionSize() / grant.blockSize()), 0)
                > map.capacity()) {
            throw new IOException(table + " describes other regions or blocks than the datanode announced");
        }
        return new LocalStorage(grant, map, regionCount);
    }

    /**
     * True when this mapping still is the storage the grant names (the datanode may have restarted
     * with new storage).
     */
    boolean matches(Grant grant) {
        return storageId.equals(grant.storageId()) && blockSize == grant.blockSize()
                && regionSize == grant.regionSize() && directory.toString().equals(grant.directory());
    }

    boolean writable() {
        return writable;
    }

    /**
     * Copies a block range out of its region into the memory {@code target} names (a reader's
     * buffer) or a new buffer, which the caller releases, then checks that the block still holds
     * the reference's generation.
     */
    ByteBuf read(BlockRef ref, int offset, int length, RpcClient.ResponseTarget target) throws IOException {
        ByteBuffer region = region(ref.regionId());
        ByteBuf named = target.claim(length);
        ByteBuf copy = named != null ? named : ByteBufAllocator.DEFAULT.directBuffer(length, length);
        try {
            copy.writeBytes(region.slice(position(ref, offset, length), length));
            // The copy's loads must be done before the generation is read again.
            VarHandle.acquireFence();
            checkGeneration(ref, "read");
            return copy;
        } catch (IOException | RuntimeException e) {
            copy.release();
            throw e;
        } catch (InternalError e) {
            copy.release();
            throw faulted(ref, "read", e);
        }
    }

    /**
     * A read-only view of a block range in its region, for a reader that copies out of it itself:
     * after each copy it calls {@link #verify}, as {@link #read} does after its own.
     */
    ByteBuf view(BlockRef ref, int offset, int length) throws IOException {
        ByteBuffer region = region(ref.regionId());
        // Netty wraps the slice without owning it: releasing the view leaves the region alone.
        return Unpooled.wrappedBuffer(region.slice(position(ref, offset, length), length).asReadOnlyBuffer());
    }

    /** After a copy out of a {@link #view}: fails when the block moved on to a newer generation. */
    void verify(BlockRef ref) throws TarnException {
        // The copy's loads must be done before the generation is read again.
        VarHandle.acquireFence();
        checkGeneration(ref, "read");
    }

    /**
     * Copies {@code data}'s readable bytes into a block range, unless the block moved on to a newer
     * generation since the datanode granted the write. Does not release {@code data}.
     *
     * @return false when the region could only be mapped for reading (nothing was written; use TCP)
     */
    boolean write(BlockRef ref, int offset, ByteBuf data) throws IOException {
        WriteRange range = writeRange(ref, offset, data.readableBytes());
        if (range == null) {
            return false;
        }
        range.copy(0, data);
        return true;
    }

    /**
     * The block range a granted write goes to, for copying into it piece by piece; null when the
     * region could only be mapped for reading (use TCP).
     */
    WriteRange writeRange(BlockRef ref, int offset, int length) throws IOException {
        ByteBuffer region = region(ref.regionId());
        if (region.isReadOnly()) {
            writable = false;
            return null;
        }
        return new WriteRange(ref, region.slice(position(ref, offset, length), length));
    }

    /** A block range a short-circuit write was granted for. */
    final class WriteRange {
        private final BlockRef ref;
        private final ByteBuffer target;

        private WriteRange(BlockRef ref, ByteBuffer target) {
            this.ref = ref;
            this.target = target;
        }

        /**
         * Copies {@code src}'s remaining bytes to {@code at} inside the range (advancing
         * {@code src}), unless the block moved on to a newer generation since the grant.
         */
        void copy(int at, ByteBuffer src) throws TarnException {
            checkGeneration(ref, "write");
            try {
                target.put(at, src, src.position(), src.remaining());
            } catch (InternalError e) {
                throw faulted(ref, "write", e);
            }
            src.position(src.limit());
        }

        /** Like {@link #copy(int, ByteBuffer)} for {@code src}'s readable bytes, leaving its indexes alone. */
        void copy(int at, ByteBuf src) throws TarnException {
            checkGeneration(ref, "write");
            try {
                src.getBytes(src.readerIndex(), target.slice(at, src.readableBytes()));
            } catch (InternalError e) {
                throw faulted(ref, "write", e);
            }
        }
    }

    private int position(BlockRef ref, int offset, int length) {
        if (ref.blockIndex() < 0 || ref.blockIndex() >= blocksPerRegion || offset < 0 || length < 0
                || (long) offset + length > blockSize) {
            throw new IndexOutOfBoundsException("block " + ref.blockIndex() + " offset " + offset + " length "
                    + length + " outside the regions of storage " + storageId);
        }
        return (int) ((long) ref.blockIndex() * blockSize + offset);
    }

    /**
     * The JVM's answer to a fault in mapped memory (SIGBUS, "a fault occurred in an unsafe memory
     * access"), as an error a caller can act on: the region's file lost pages under the mapping.
     */
    private TarnException faulted(BlockRef ref, String what, InternalError e) {
        return new TarnException(ErrorCode.DATA_LOST, "short-circuit " + what + " of region " + ref.regionId()
                + " block " + ref.blockIndex() + " on " + ref.address() + " faulted (" + e.getMessage() + "): the "
                + "region's file under " + directory + " was cut short while mapped, so its data is gone; the "
                + "datanode takes the region out of service");
    }

    private void checkGeneration(BlockRef ref, String what) throws TarnException {
        long slot = ShortCircuitProtocol.generationSlot(ref.regionId(), blocksPerRegion, ref.blockIndex());
        int now = (int) SLOT.getVolatile(generations, (int) slot);
        if (now != ref.generation()) {
            throw new TarnException(ErrorCode.STALE_GENERATION, "short-circuit " + what + " of region "
                    + ref.regionId() + " block " + ref.blockIndex() + " generation " + ref.generation() + " on "
                    + ref.address() + ": the block now holds generation " + now + (now < ref.generation()
                    ? " (the datanode forgot the block's generations: the namenode restarted without its journal, "
                    + "or the datanode came back without its data; the file is gone with them)"
                    : " (the block was given to another file: this one was deleted or overwritten)"));
        }
    }

    /** The mapping of one region, made when first used: read-write when the file allows it, else read-only. */
    private ByteBuffer region(int index) throws IOException {
        if (index < 0 || index >= regions.length()) {
            throw new IndexOutOfBoundsException("region " + index + " outside the " + regions.length()
                    + " regions of storage " + storageId);
        }
        ByteBuffer mapped = regions.get(index);
        if (mapped != null) {
            return mapped;
        }
        Path file = directory.resolve(ShortCircuitProtocol.regionFile(index));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            mapped = map(ch, file, FileChannel.MapMode.READ_WRITE);
        } catch (AccessDeniedException e) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                mapped = map(ch, file, FileChannel.MapMode.READ_ONLY);
            }
        }
        // Two threads may map the same region at once; the first published mapping wins.
        return regions.compareAndSet(index, null, mapped) ? mapped : regions.get(index);
    }

    private ByteBuffer map(FileChannel ch, Path file, FileChannel.MapMode mode) throws IOException {
        if (ch.size() < regionSize) {
            // A shorter file would fault (SIGBUS) on access past its end.
            throw new IOException(file + " holds " + ch.size() + " bytes, less than a region of " + regionSize);
        }
        MappedByteBuffer mapped = ch.map(mode, 0, regionSize);
        mapped.load();
        return mapped;
    }

    @Override
    public String toString() {
        return "storage " + storageId + " in " + directory;
    }
}
