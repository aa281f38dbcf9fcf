package io.tarn.common.fs;

/**
 * Layout of the 64-bit ids of files and directories.
 *
 * <pre>
 *  63  62   61 .. 54     53 .. 31        30 .. 0
 * +---+---+-----------+---------------+-------------+
 * | 0 | D | partition | reuse counter |    slot     |     file:      D = 0
 * +---+---+-----------+---------------+-------------+
 * | 0 | 1 |          sequence number (62 bits)      |     directory: D = 1
 * +---+---+-----------------------------------------+
 * </pre>
 * A file id names its owning namenode partition (so a client routes getBlock and close by id alone),
 * its slot in that partition's {@link FileTable} (O(1) lookup), and how often that slot had been
 * reused, so a stale id held by a client never reaches a later file in the same slot (until the
 * 23-bit counter wraps). Ids are never negative.
 */
public final class FileIds {
    public static final int SLOT_BITS = 31;
    public static final int COUNTER_BITS = 23;
    public static final int PARTITION_BITS = 8;
    public static final int MAX_SLOT = (1 << SLOT_BITS) - 1;
    public static final int COUNTER_MASK = (1 << COUNTER_BITS) - 1;
    public static final int MAX_PARTITIONS = 1 << PARTITION_BITS;

    private static final int COUNTER_SHIFT = SLOT_BITS;
    private static final int PARTITION_SHIFT = SLOT_BITS + COUNTER_BITS;
    private static final long DIRECTORY_BIT = 1L << 62;

    private FileIds() {
    }

    public static long file(int partition, int counter, int slot) {
        return ((long) partition << PARTITION_SHIFT) | ((long) (counter & COUNTER_MASK) << COUNTER_SHIFT) | slot;
    }

    public static long directory(long sequence) {
        return DIRECTORY_BIT | (sequence & (DIRECTORY_BIT - 1));
    }

    /** The sequence number of a directory id. */
    public static long sequence(long directoryId) {
        return directoryId & (DIRECTORY_BIT - 1);
    }

    public static boolean isDirectory(long id) {
        return (id & DIRECTORY_BIT) != 0;
    }

    public static int partition(long id) {
        return (int) (id >>> PARTITION_SHIFT) & (MAX_PARTITIONS - 1);
    }

    public static int counter(long id) {
        return (int) (id >>> COUNTER_SHIFT) & COUNTER_MASK;
    }

    public static int slot(long id) {
        return (int) (id & MAX_SLOT);
    }

    /** Hex form for messages. */
    public static String format(long id) {
        return "0x" + Long.toHexString(id);
    }
}
