package io.tarn.client;

import java.io.IOException;
import java.util.Random;

/** Whole files written and read back through a real client, and their reproducible contents. */
final class TestFiles {
    private TestFiles() {
    }

    /** {@code n} bytes that {@code seed} always gives again. */
    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Creates {@code path} with {@code data} and closes it. */
    static void write(TarnClient client, String path, byte[] data) throws IOException {
        try (TarnOutputStream out = client.create(path)) {
            out.write(data);
        }
    }

    /** The whole of {@code path}. */
    static byte[] read(TarnClient client, String path) throws IOException {
        try (TarnInputStream in = client.open(path)) {
            return in.readAllBytes();
        }
    }
}
