package io.tarn.client.random;

/**
 * The sizes, limits and switches of the randomized namespace test ({@link RandomNamespaceConcurrencyTest}): how
 * many namenodes and clients, how long each client runs, which seeds, and the two directories the clients share.
 */
final class Scenario {
    static final int NAMENODES = 4;
    static final int CLIENTS = 4;
    static final int OPERATIONS_PER_CLIENT = 1200;
    static final int CHECK_EVERY = 10;
    static final long[] DEFAULT_SEEDS = {1L, 2L, 3L};
    static final String SEED_PROPERTY = "tarn.test.seed";
    static final String STRICT_PROPERTY = "tarn.test.strictHdfs";
    /**
     * HDFS's outcomes everywhere (the default); {@code -Dtarn.test.strictHdfs=false} for the older,
     * partitioned rules.
     */
    static final boolean STRICT = !"false".equals(System.getProperty(STRICT_PROPERTY, "true"));

    static final String SHARED = "/shared";
    static final String SUB = "/shared/sub";
    /** Contested rename targets in /shared: the first rename to each wins, the file stays there for good. */
    static final int RACE_NAMES = 8;
    static final int MAX_PRIVATE_FILES = 20;
    static final int MAX_PRIVATE_DIRECTORIES = 14;
    static final int MAX_DEPTH = 6;
    static final int MAX_HELD = 8;
    /** Renamed-away copies of /shared/sub a client keeps to the end (it deletes the others at once). */
    static final int MAX_KEPT_OLD = 2;
    static final int HISTORY = 50;
    static final long RUN_TIMEOUT_SECONDS = 120;

    private Scenario() {
    }
}
