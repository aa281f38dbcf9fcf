package io.tarn.minicluster;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waits in tests for a cluster to reach a state it reaches asynchronously (a datanode registered, a
 * block freed, a connection closed), instead of a bare {@code Thread.sleep} loop: the condition is
 * polled every millisecond until it holds, and a wait that times out fails with what was expected
 * and the last value seen.
 *
 * <pre>
 * Eventually.within(Duration.ofSeconds(10), "every datanode alive", () -> cluster.namenode().liveDatanodes() == 2);
 * int free = Eventually.value(Duration.ofSeconds(10), "the blocks freed", () -> freeBlocks(), n -> n == before);
 * </pre>
 */
public final class Eventually {
    private static final long POLL_NANOS = 1_000_000;

    private Eventually() {
    }

    /**
     * Returns once {@code condition} holds; throws {@link AssertionError} naming {@code what} when it
     * still does not after {@code timeout}.
     */
    public static void within(Duration timeout, String what, BooleanSupplier condition) {
        value(timeout, what, condition::getAsBoolean, Boolean::booleanValue);
    }

    /**
     * Polls {@code value} until {@code accepted} holds for what it returns, and returns that value;
     * throws {@link AssertionError} with {@code what} and the last value seen after {@code timeout}.
     */
    public static <T> T value(Duration timeout, String what, Supplier<T> value,
            Predicate<? super T> accepted) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            T seen = value.get();
            if (accepted.test(seen)) {
                return seen;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("waited " + timeout.toMillis() + " ms for " + what + "; last seen: " + seen);
            }
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what);
            }
        }
    }
}
