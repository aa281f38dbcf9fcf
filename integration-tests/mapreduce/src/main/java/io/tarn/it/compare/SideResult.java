package io.tarn.it.compare;

import java.util.Map;

/**
 * What one file system did in a run.
 *
 * @param getFile     by calls in flight
 * @param createClose by files in flight
 * @param writeBytesPerSecond sequential write, bytes per second (create to closed)
 * @param readBytesPerSecond  sequential read, bytes per second (open to end of file)
 * @param shortCircuitWriteBytesPerSecond the same write through the side's short-circuit client
 *                                        ({@link StorageSide#shortCircuit()}); NaN when it has none
 * @param shortCircuitReadBytesPerSecond  the same read through it; NaN when it has none
 * @param rename      by renames in flight
 */
public record SideResult(String description, Map<Integer, LoadResult> getFile, Map<Integer, LoadResult> createClose,
                         double writeBytesPerSecond, double readBytesPerSecond,
                         double shortCircuitWriteBytesPerSecond, double shortCircuitReadBytesPerSecond,
                         Map<Integer, LoadResult> rename) {
    public boolean hasShortCircuit() {
        return !Double.isNaN(shortCircuitWriteBytesPerSecond);
    }
}
