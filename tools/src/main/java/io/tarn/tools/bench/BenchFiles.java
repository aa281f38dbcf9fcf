package io.tarn.tools.bench;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.fs.FileStatus;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;

/** Set-up helpers the iobench types share: checking the file to read, creating small inputs, test data. */
final class BenchFiles {
    private BenchFiles() {
    }

    /** The status of a file written earlier, or a message saying how to write it. */
    static FileStatus existingFile(TarnClient client, String path, long minSize) throws IOException {
        FileStatus s;
        try {
            s = client.getStatus(path);
        } catch (FileNotFoundException e) {
            throw new FileNotFoundException(path + " does not exist; write it first, e.g. "
                    + "'tarn iobench -t write -f " + path + " -s 1m -k 1024'");
        }
        if (s.isDirectory()) {
            throw new IOException(path + " is a directory; give a file with -f");
        }
        if (s.size() < Math.max(1, minSize)) {
            throw new IOException(path + " holds " + s.size() + " bytes, fewer than one operation needs ("
                    + Math.max(1, minSize) + "); write it first with 'tarn iobench -t write -f " + path + "'");
        }
        return s;
    }

    /** Creates {@code path} (and parents) holding {@code bytes} bytes when it does not exist. */
    static void ensureFile(TarnClient client, String path, int bytes) throws IOException {
        if (client.exists(path)) {
            return;
        }
        try (TarnOutputStream out = client.create(path, CreateOptions.DEFAULT)) {
            if (bytes > 0) {
                out.write(data(bytes));
            }
        }
    }

    /** A direct buffer of pseudo-random bytes (fixed seed), so that no layer can compress or skip zeros. */
    static ByteBuffer data(int size) {
        byte[] b = new byte[size];
        new Random(0x7a24L).nextBytes(b);
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        buf.put(b).flip();
        return buf;
    }
}
