package io.tarn.it.dfsio;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

/** A file system started for one side of the comparison; {@link #close()} stops it. */
interface BenchmarkTarget extends AutoCloseable {
    /** How the result table names it. */
    String description();

    /** The URI jobs use as their default file system. */
    URI uri();

    /** The keys its clients need besides the URI ({@code tarn.*} names): none but for Tarn's authentication. */
    default Map<String, String> clientKeys() throws IOException {
        return Map.of();
    }

    @Override
    void close() throws IOException;
}
