package io.tarn.tools.bench;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chained driver of the asynchronous metadata types: every operation issued once, never more
 * than {@code inflight} at a time, each recorded, and the first failure ending the run. Operations
 * complete on a thread of their own, as a client's answers do on its I/O thread.
 */
class AsyncDriverTest {
    private final ExecutorService answers = Executors.newSingleThreadExecutor();

    @Test
    void issuesEveryOperationOnceWithAtMostInflightOutstanding() throws Exception {
        Set<Long> issued = ConcurrentHashMap.newKeySet();
        AtomicInteger twice = new AtomicInteger();
        AtomicInteger outstanding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Meter meter = new Meter();
        try {
            AsyncDriver.chained(10_000, 8, 3, meter, i -> {
                if (!issued.add(i)) {
                    twice.incrementAndGet(); // counted, not asserted: this runs on the answers' thread
                }
                most.accumulateAndGet(outstanding.incrementAndGet(), Math::max);
                return CompletableFuture.runAsync(outstanding::decrementAndGet, answers);
            });
        } finally {
            answers.shutdown();
        }
        assertThat(twice.get()).as("operations issued twice").isZero();
        assertThat(issued).hasSize(10_000).allMatch(i -> i >= 0 && i < 10_000);
        assertThat(meter.ops()).isEqualTo(10_000);
        assertThat(meter.bytes()).isEqualTo(30_000);
        assertThat(most.get()).isBetween(1, 8);
    }

    @Test
    void theFirstFailureEndsTheRunAndIsThrown() {
        Meter meter = new Meter();
        try {
            assertThatThrownBy(() -> AsyncDriver.chained(1_000_000, 4, 0, meter, i -> i == 100
                    ? CompletableFuture.failedFuture(new TarnException(ErrorCode.FILE_NOT_FOUND, "/gone"))
                    : CompletableFuture.runAsync(() -> { }, answers)))
                    .isInstanceOf(IOException.class).hasMessageContaining("/gone");
        } finally {
            answers.shutdown();
        }
        assertThat(meter.ops()).isLessThan(1_000_000);
    }

    @Test
    void anOperationThatCannotBeIssuedIsThrownToo() {
        assertThatThrownBy(() -> AsyncDriver.chained(10, 2, 0, new Meter(), i -> {
            throw new IOException("refused " + i);
        })).isInstanceOf(IOException.class).hasMessageStartingWith("refused");
        answers.shutdown();
    }
}
