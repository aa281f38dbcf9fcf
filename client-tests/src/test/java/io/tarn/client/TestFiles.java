package io.tarn.client;

import io.tarn.common.fs.Partitions;

import java.io.IOException;
import java.util.Random;

/**
 * Whole files written and read back through a real client, their reproducible contents, and names
 * that hash to a chosen namenode.
 */
public final class TestFiles {
    private TestFiles() {
    }

    /** The {@code k}-th name {@code prefix<i>} owned by partition {@code p} of {@code partitions}. */
    public static String nameOf(int p, int partitions, String prefix, int k) {
        int found = 0;
        for (int i = 0; ; i++) {
            if (Partitions.ofName(prefix + i, partitions) == p && found++ == k) {
                return prefix + i;
            }
        }
    }

    /** {@code n} bytes that {@code seed} always gives again. */
    public static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Creates {@code path} with {@code data} and closes it. */
    public static void write(TarnClient client, String path, byte[] data) throws IOException {
        try (TarnOutputStream out = client.create(path)) {
            out.write(data);
        }
    }

    /** The whole of {@code path}. */
    public static byte[] read(TarnClient client, String path) throws IOException {
        try (TarnInputStream in = client.open(path)) {
            return in.readAllBytes();
        }
    }
}
