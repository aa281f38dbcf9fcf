package io.tarn.tools.bench;

import java.io.IOException;

/**
 * One iobench type: what it prepares, the operations it measures, and what it cleans up.
 * {@link IoBench} calls {@link #setUp()} once, then for the warm-up and each experiment
 * {@link #beforeRun}, {@link #run} (the only timed part) and {@link #afterRun()}, then {@link #tearDown()}.
 */
interface Workload {
    /** Creates or checks what every run needs (e.g. the file to read); not measured. */
    default void setUp() throws IOException {
    }

    /** Prepares one run of {@code ops} operations (e.g. opens a stream); not measured. */
    default void beforeRun(long ops) throws IOException {
    }

    /** Performs {@code ops} operations, recording each in {@code meter}. */
    void run(long ops, Meter meter) throws IOException, InterruptedException;

    /** Releases what the run held (streams, created files); not measured. */
    default void afterRun() throws IOException {
    }

    /** Removes what {@link #setUp()} created for this invocation only. */
    default void tearDown() throws IOException {
    }
}
