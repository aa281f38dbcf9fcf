package io.tarn.tools.chaos;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The bytes of a workload value: a header line naming the value, then filler derived from the
 * value, to a fixed size. A reader recognises a whole, unaltered value; anything else (a truncated
 * file, other bytes) decodes to a token no write ever wrote, which the linearizability check
 * refutes.
 */
final class Values {
    private static final String MAGIC = "tarn-chaos ";

    private Values() {
    }

    /** The file content of {@code value}, {@code size} bytes (at least the header). */
    static byte[] encode(String value, int size) {
        byte[] header = (MAGIC + value + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] bytes = Arrays.copyOf(header, Math.max(size, header.length));
        long x = value.hashCode() * 0x9E3779B97F4A7C15L | 1;
        for (int i = header.length; i < bytes.length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            bytes[i] = (byte) x;
        }
        return bytes;
    }

    /** The value whose encoding at {@code size} bytes is exactly {@code bytes}, else a "corrupt:..." token. */
    static String decode(byte[] bytes, int size) {
        int nl = -1;
        for (int i = 0; i < Math.min(bytes.length, 512); i++) {
            if (bytes[i] == '\n') {
                nl = i;
                break;
            }
        }
        String header = nl < 0 ? "" : new String(bytes, 0, nl, StandardCharsets.UTF_8);
        if (header.startsWith(MAGIC)) {
            String value = header.substring(MAGIC.length());
            if (!value.isEmpty() && Arrays.equals(bytes, encode(value, size))) {
                return value;
            }
        }
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return "corrupt:" + bytes.length + ":" + Long.toHexString(crc.getValue());
    }
}
