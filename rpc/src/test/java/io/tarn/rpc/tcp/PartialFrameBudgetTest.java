package io.tarn.rpc.tcp;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The server-wide bound on partial frames: reservations, the line of waiting frames, cancelling. */
class PartialFrameBudgetTest {
    /** A waiter that records what it was granted. */
    private static final class Recorder implements PartialFrameBudget.Waiter {
        final List<Long> grants = new ArrayList<>();

        @Override
        public synchronized void granted(long bytes) {
            grants.add(bytes);
        }

        synchronized List<Long> grants() {
            return List.copyOf(grants);
        }
    }

    @Test
    void reservesWithinTheLimitAndQueuesBeyondItInArrivalOrder() {
        PartialFrameBudget b = new PartialFrameBudget(100);
        Recorder first = new Recorder();
        assertThat(b.reserve(60, first)).isTrue();
        assertThat(b.reserve(40, first)).isTrue();
        assertThat(b.held()).isEqualTo(100);

        Recorder large = new Recorder();
        Recorder small = new Recorder();
        assertThat(b.reserve(70, large)).isFalse();
        assertThat(b.reserve(10, small)).as("behind the large frame, though it would fit once 10 are free").isFalse();
        assertThat(b.waiting()).isEqualTo(2);

        b.release(40);
        assertThat(large.grants()).as("60 held: 70 do not fit yet").isEmpty();
        assertThat(small.grants()).as("not before the frame ahead of it").isEmpty();
        b.release(60);
        assertThat(large.grants()).containsExactly(70L);
        assertThat(small.grants()).containsExactly(10L);
        assertThat(b.held()).isEqualTo(80);
        assertThat(b.waiting()).isZero();
        assertThat(b.reserve(20, first)).as("no one waits: the fast path").isTrue();
    }

    @Test
    void aFrameLargerThanTheLimitIsGrantedOnAnEmptyBudget() {
        PartialFrameBudget b = new PartialFrameBudget(100);
        Recorder r = new Recorder();
        assertThat(b.reserve(250, r)).isTrue();
        assertThat(b.reserve(1, r)).isFalse();
        b.release(250);
        assertThat(r.grants()).containsExactly(1L);

        Recorder huge = new Recorder();
        assertThat(b.reserve(500, huge)).isFalse();
        b.release(1);
        assertThat(huge.grants()).containsExactly(500L);
    }

    @Test
    void aCancelledWaiterIsNotGrantedAndTheNextOneIs() {
        PartialFrameBudget b = new PartialFrameBudget(100);
        Recorder holder = new Recorder();
        Recorder gone = new Recorder();
        Recorder next = new Recorder();
        assertThat(b.reserve(100, holder)).isTrue();
        assertThat(b.reserve(50, gone)).isFalse();
        assertThat(b.reserve(50, next)).isFalse();
        assertThat(b.cancel(gone)).isTrue();
        assertThat(b.cancel(gone)).as("not in line any more").isFalse();
        b.release(100);
        assertThat(gone.grants()).isEmpty();
        assertThat(next.grants()).containsExactly(50L);
        assertThat(b.cancel(next)).as("already granted: the waiter must give the room back").isFalse();
    }

    @Test
    void aNonPositiveLimitIsRefused() {
        assertThatThrownBy(() -> new PartialFrameBudget(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be positive");
    }

    @Test
    void underContentionNoMoreIsHeldThanTheLimitAndEveryWaiterIsGrantedOrCancelled() throws Exception {
        long limit = 1_000;
        PartialFrameBudget b = new PartialFrameBudget(limit);
        AtomicLong over = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int threads = 4;
        int rounds = 20_000;
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int i = 0; i < rounds; i++) {
                        long bytes = 1 + rnd.nextInt(400);
                        CountDownLatch granted = new CountDownLatch(1);
                        AtomicLong got = new AtomicLong();
                        PartialFrameBudget.Waiter w = n -> {
                            got.set(n);
                            granted.countDown();
                        };
                        if (b.reserve(bytes, w)) {
                            got.set(bytes);
                        } else if (rnd.nextInt(4) == 0 && b.cancel(w)) {
                            continue; // gave up waiting
                        } else if (!granted.await(10, TimeUnit.SECONDS)) {
                            throw new AssertionError("a waiter was never granted: " + b);
                        }
                        if (b.held() > limit && got.get() <= limit) {
                            over.incrementAndGet();
                        }
                        b.release(got.get());
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            });
            th.start();
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(failure.get()).isNull();
        assertThat(over.get()).as("times more than the limit was held").isZero();
        assertThat(b.held()).isZero();
        assertThat(b.waiting()).isZero();
    }
}
