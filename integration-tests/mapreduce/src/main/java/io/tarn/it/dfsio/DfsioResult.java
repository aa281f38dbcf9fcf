package io.tarn.it.dfsio;

/**
 * TestDFSIO's write and read runs on one file system.
 *
 * @param fileSystem what was measured, as the table names it
 * @param write      the {@code -write} run
 * @param read       the {@code -read} run over the files just written
 */
public record DfsioResult(String fileSystem, DfsioFigures write, DfsioFigures read) {
}
