package io.tarn.tools.bench;

/**
 * The parameters of one iobench invocation, as given with its flags.
 *
 * @param path        the file or directory the type works on (-f)
 * @param size        bytes per data operation (-s)
 * @param ops         measured operations per experiment (-k)
 * @param inflight    operations in flight for asynchronous types (-b)
 * @param warmup      operations run once before the experiments, not measured (-w)
 * @param experiments how many times the measurement is repeated (-e)
 * @param keep        leave files created by createFile types in place (--keep)
 * @param files       getFile types: how many files the lookups cycle through (--files); 1 is {@code path}
 *                    itself, more are {@code path-0} .. {@code path-(files-1)}
 */
record BenchParams(String path, int size, long ops, int inflight, long warmup, int experiments, boolean keep,
                   int files) {
    BenchParams(String path, int size, long ops, int inflight, long warmup, int experiments, boolean keep) {
        this(path, size, ops, inflight, warmup, experiments, keep, 1);
    }
}
