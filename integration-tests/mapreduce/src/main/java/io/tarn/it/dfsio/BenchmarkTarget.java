package io.tarn.it.dfsio;

import java.io.IOException;
import java.net.URI;

/** A file system started for one side of the comparison; {@link #close()} stops it. */
interface BenchmarkTarget extends AutoCloseable {
    /** How the result table names it. */
    String description();

    /** The URI jobs use as their default file system. */
    URI uri();

    @Override
    void close() throws IOException;
}
