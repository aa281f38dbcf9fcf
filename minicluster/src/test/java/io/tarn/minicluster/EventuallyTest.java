package io.tarn.minicluster;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventuallyTest {
    @Test
    void returnsTheFirstAcceptedValueSeenByAnotherThreadsWork() throws Exception {
        AtomicInteger counter = new AtomicInteger();
        Thread worker = new Thread(() -> {
            for (int i = 0; i < 50; i++) {
                counter.incrementAndGet();
                Thread.onSpinWait();
            }
        });
        worker.start();
        int seen = Eventually.value(Duration.ofSeconds(10), "the counter at 50", counter::get, n -> n == 50);
        worker.join();
        assertThat(seen).isEqualTo(50);
    }

    @Test
    void aConditionThatNeverHoldsFailsNamingItAndTheLastValueAfterTheTimeout() {
        AtomicInteger polls = new AtomicInteger();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Eventually.value(Duration.ofMillis(50), "seven", polls::incrementAndGet, n -> n < 0))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("waited 50 ms for seven; last seen: ")
                .hasMessageEndingWith(": " + polls.get());
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(50_000_000L);
        assertThat(polls.get()).isGreaterThan(1);
    }

    @Test
    void withinReturnsAtOnceWhenTheConditionHolds() {
        AtomicInteger polls = new AtomicInteger();
        Eventually.within(Duration.ofSeconds(1), "true", () -> polls.incrementAndGet() > 0);
        assertThat(polls.get()).isEqualTo(1);
    }
}
