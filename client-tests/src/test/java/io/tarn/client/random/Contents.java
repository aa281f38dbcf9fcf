package io.tarn.client.random;

import io.tarn.client.TarnClient;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** File contents that name the file they were written for (its identity), and reading them back. */
final class Contents {
    /** A file's content: its identity, repeated. */
    static byte[] content(String identity, int repeats) {
        return ("<" + identity + ">").repeat(repeats).getBytes(StandardCharsets.UTF_8);
    }

    /** The identity a content names, or null when it is not one {@link #content} makes. */
    static String identityOf(byte[] data) {
        String s = new String(data, StandardCharsets.UTF_8);
        int end = s.indexOf('>');
        if (!s.startsWith("<") || end < 0) {
            return null;
        }
        String identity = s.substring(1, end);
        return s.equals(("<" + identity + ">").repeat(s.length() / (end + 1))) ? identity : null;
    }

    static byte[] read(TarnClient client, String path) throws IOException {
        try (InputStream in = client.open(path)) {
            return in.readAllBytes();
        }
    }

    private Contents() {
    }
}
