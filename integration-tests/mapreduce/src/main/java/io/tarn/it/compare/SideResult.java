package io.tarn.it.compare;

import java.util.Map;

/**
 * What one file system did in a run.
 *
 * @param getFile     by calls in flight
 * @param createClose by files in flight
 * @param writeBytesPerSecond sequential write, bytes per second (create to closed)
 * @param readBytesPerSecond  sequential read, bytes per second (open to end of file)
 */
public record SideResult(String description, Map<Integer, LoadResult> getFile, Map<Integer, LoadResult> createClose,
                         double writeBytesPerSecond, double readBytesPerSecond) {
}
