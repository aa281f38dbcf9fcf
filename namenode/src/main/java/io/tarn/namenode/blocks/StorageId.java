package io.tarn.namenode.blocks;

/**
 * The 128-bit identity a datanode keeps with its storage across restarts; the namenode recognises a
 * returning datanode by it (host and port may change).
 */
public record StorageId(long high, long low) {
    @Override
    public String toString() {
        return String.format("%016x%016x", high, low);
    }
}
