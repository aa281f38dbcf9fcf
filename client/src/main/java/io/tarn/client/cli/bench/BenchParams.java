package io.tarn.client.cli.bench;

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
 */
record BenchParams(String path, int size, long ops, int inflight, long warmup, int experiments, boolean keep) {
}
