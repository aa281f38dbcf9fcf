package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Short-circuit block access for a client on the same host as a DRAM datanode, and the layout of
 * the datanode files such a client maps.
 *
 * <p>A short-circuit request is a block request without the data: the datanode runs exactly the
 * checks of READ_BLOCK or WRITE_BLOCK (region, registration, range, token, generation; a write
 * advances the block's generation first) and answers with a grant naming its storage, and the
 * client copies the bytes itself between its buffer and the datanode's memory-mapped region file.
 * After copying out of a region, a reader reads the block's generation in the mapped generation
 * table again: if it moved on, the block was handed out again while being copied and the bytes are
 * dropped (STALE_GENERATION), as a TCP read of that generation would have been refused.
 *
 * <pre>
 * SC_READ  req: BlockAccess (as READ_BLOCK, {@link DatanodeProtocol})   resp: Grant
 * SC_WRITE req: BlockAccess (as WRITE_BLOCK, without the data)            resp: Grant
 * Grant:
 *   offered[u8] = 1: storageIdHigh[i64] storageIdLow[i64] regionSize[i64] blockSize[i32] bootId[str] directory[str]
 *   offered[u8] = 0: reason[str]   (the datanode does not offer it: direct memory, or switched off; use TCP)
 * </pre>
 *
 * <p>Files under {@code directory}: {@code region-00000 ...} hold the regions' bytes;
 * {@code generations} holds the table (a 64-byte header, then one native-order int per block,
 * region-major):
 * <pre>
 *   0 magic "TARNGEN1"[i64]   8 storageIdHigh[i64]   16 storageIdLow[i64]
 *  24 regionSize[i64]        32 regionCount[i32]    36 blockSize[i32]    40..63 reserved
 * </pre>
 */
public final class ShortCircuitProtocol {
    private ShortCircuitProtocol() {
    }

    /** The generation table's file in a storage directory. */
    public static final String GENERATIONS_FILE = "generations";
    public static final long GENERATIONS_MAGIC = 0x5441524E47454E31L;
    public static final int GEN_MAGIC_OFFSET = 0;
    public static final int GEN_ID_HIGH_OFFSET = 8;
    public static final int GEN_ID_LOW_OFFSET = 16;
    public static final int GEN_REGION_SIZE_OFFSET = 24;
    public static final int GEN_REGION_COUNT_OFFSET = 32;
    public static final int GEN_BLOCK_SIZE_OFFSET = 36;
    /** Bytes before the first generation slot. */
    public static final int GEN_HEADER_LENGTH = 64;

    /** The file name of region {@code index} in a storage directory. */
    public static String regionFile(int index) {
        return String.format("region-%05d", index);
    }

    /** Byte offset of a block's generation slot in the table file. */
    public static long generationSlot(int region, int blocksPerRegion, int block) {
        return GEN_HEADER_LENGTH + ((long) region * blocksPerRegion + block) * Integer.BYTES;
    }

    /** What a datanode answers to SC_READ and SC_WRITE. */
    public record Grant(boolean offered, UUID storageId, long regionSize, int blockSize, String bootId,
                        String directory, String reason) {

        public static Grant refused(String reason) {
            return new Grant(false, null, 0, 0, "", "", reason);
        }

        public void write(ByteBuf buf) {
            buf.writeByte(offered ? 1 : 0);
            if (!offered) {
                Wire.writeString(buf, reason);
                return;
            }
            buf.writeLong(storageId.getMostSignificantBits());
            buf.writeLong(storageId.getLeastSignificantBits());
            buf.writeLong(regionSize);
            buf.writeInt(blockSize);
            Wire.writeString(buf, bootId);
            Wire.writeString(buf, directory);
        }

        public static Grant read(ByteBuf buf) {
            if (!Wire.readBoolean(buf)) {
                Grant g = refused(Wire.readString(buf));
                Wire.end(buf);
                return g;
            }
            UUID id = new UUID(Wire.readLong(buf), Wire.readLong(buf));
            long regionSize = Wire.readLong(buf);
            int blockSize = Wire.readInt(buf);
            if (regionSize <= 0 || blockSize <= 0 || regionSize % blockSize != 0) {
                throw new MalformedMessageException("short-circuit grant with region size " + regionSize
                        + " and block size " + blockSize);
            }
            String bootId = Wire.readString(buf);
            String directory = Wire.readString(buf);
            Wire.end(buf);
            return new Grant(true, id, regionSize, blockSize, bootId, directory, "");
        }
    }

    private static final String BOOT_ID = readBootId();

    /**
     * This host's boot id ({@code /proc/sys/kernel/random/boot_id}): equal for two processes only
     * when they run on the same kernel, since its last boot. Empty when the system has none (then
     * short-circuit access is never used).
     */
    public static String bootId() {
        return BOOT_ID;
    }

    private static String readBootId() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
