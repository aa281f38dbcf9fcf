package io.tarn.client.cli.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Stream copying with a buffer as large as a default block, so that each write fills whole chunks. */
final class Copy {
    static final int BUFFER = 1 << 20;

    private Copy() {
    }

    /** Copies until the end of {@code in}; returns the bytes copied. */
    static long stream(InputStream in, OutputStream out) throws IOException {
        byte[] buf = new byte[BUFFER];
        long total = 0;
        int n;
        while ((n = in.read(buf)) >= 0) {
            out.write(buf, 0, n);
            total += n;
        }
        return total;
    }
}
