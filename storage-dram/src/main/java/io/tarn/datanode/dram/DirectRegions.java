package io.tarn.datanode.dram;

import java.nio.ByteBuffer;

/**
 * Regions in JVM direct memory ({@link ByteBuffer#allocateDirect}): used when no usable memory
 * file system is configured. The data dies with the process, so a restart always starts empty.
 */
final class DirectRegions extends MemoryRegions {

    private DirectRegions(ByteBuffer[] regions, int regionSize) {
        super(regions, regionSize);
    }

    /**
     * Allocates {@code count} zeroed regions.
     *
     * @throws IllegalStateException naming {@code -XX:MaxDirectMemorySize} when the JVM's direct
     *                               memory limit is too small
     */
    static DirectRegions allocate(int count, int regionSize) {
        ByteBuffer[] regions = new ByteBuffer[count];
        try {
            for (int i = 0; i < count; i++) {
                regions[i] = ByteBuffer.allocateDirect(regionSize);
            }
        } catch (OutOfMemoryError e) {
            throw new IllegalStateException("cannot allocate " + count + " regions of " + regionSize
                    + " bytes in direct memory (" + e.getMessage() + "); raise -XX:MaxDirectMemorySize or lower "
                    + "tarn.datanode.dram.capacity", e);
        }
        return new DirectRegions(regions, regionSize);
    }
}
