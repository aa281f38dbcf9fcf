package io.tarn.it.compare;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/** The data of the sequential workloads and their arithmetic, shared by both sides. */
final class SequentialData {
    private SequentialData() {
    }

    /** One 1 MiB buffer of pseudo-random bytes (not compressible, not zeros). */
    static byte[] array() {
        byte[] b = new byte[CompareSettings.IO_BUFFER];
        new Random(42).nextBytes(b);
        return b;
    }

    static ByteBuffer directBuffer() {
        ByteBuffer b = ByteBuffer.allocateDirect(CompareSettings.IO_BUFFER);
        b.put(array()).flip();
        return b;
    }

    /** Bytes per second from {@code startNanos} to now. */
    static double rate(long bytes, long startNanos) {
        return bytes / ((System.nanoTime() - startNanos) / 1e9);
    }

    /** The median of {@code figures} (the middle one; for an even count, the mean of the two middle ones). */
    static double median(double[] figures) {
        double[] sorted = figures.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    static void checkLength(String what, long read, long expected) throws IOException {
        if (read != expected) {
            throw new IOException("read " + read + " bytes of " + what + ", expected " + expected);
        }
    }
}
