package io.tarn.client;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The back-off of {@link Backoff}: which answers it tries again, the pauses between attempts (1 ms
 * doubling up to 64 ms) and where it stops ({@code tarn.rpc.timeout} after the first attempt). Calls
 * are plain futures: the back-off never looks past the answer, and a namenode that answers RETRY on
 * cue cannot be had.
 */
class BackoffTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** A call answering RETRY {@code retries} times, then "done", noting when each attempt started. */
    private static final class Attempts {
        final List<Long> startNanos = new ArrayList<>();
        final int retries;

        Attempts(int retries) {
            this.retries = retries;
        }

        synchronized CompletableFuture<String> call() {
            startNanos.add(System.nanoTime());
            return startNanos.size() <= retries
                    ? CompletableFuture.failedFuture(new TarnException(ErrorCode.RETRY, "sealed for a moment"))
                    : CompletableFuture.completedFuture("done");
        }

        synchronized int count() {
            return startNanos.size();
        }

        synchronized long millisBetween(int earlier, int later) {
            return TimeUnit.NANOSECONDS.toMillis(startNanos.get(later) - startNanos.get(earlier));
        }
    }

    /** The error code {@code f} fails with (null for a failure that has none). */
    private static ErrorCode failureCode(CompletableFuture<?> f) throws Exception {
        try {
            f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return e.getCause() instanceof TarnException t ? t.code() : null;
        }
        throw new AssertionError("succeeded, expected to fail");
    }

    @Test
    void pausesDoubleFromOneMillisecondAndStayAt64() {
        List<Long> pauses = new ArrayList<>();
        long pause = Backoff.FIRST_PAUSE_MS;
        for (int i = 0; i < 10; i++) {
            pauses.add(pause);
            pause = Backoff.nextPause(pause);
        }
        assertThat(pauses).containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 64L, 64L, 64L, 64L);
        assertThat(Backoff.nextPause(Backoff.LONGEST_PAUSE_MS)).isEqualTo(Backoff.LONGEST_PAUSE_MS);
    }

    @Test
    void anAnswerOtherThanRetryIsTheResultAtOnce() {
        Backoff backoff = new Backoff(30_000);
        Attempts ok = new Attempts(0);
        assertThat(backoff.retrying(ok::call, null)).succeedsWithin(WAIT).isEqualTo("done");
        assertThat(ok.count()).isEqualTo(1);

        int[] calls = new int[1];
        TarnException missing = new TarnException(ErrorCode.FILE_NOT_FOUND, "no such file: '/x'");
        CompletableFuture<String> failed = backoff.retrying(() -> {
            calls[0]++;
            return CompletableFuture.failedFuture(missing);
        }, null);
        assertThat(failed).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .withCause(missing);
        assertThat(calls[0]).as("a failure other than RETRY is not tried again").isEqualTo(1);
    }

    @Test
    void aFailureOtherThanRetryIsOfferedToOtherwiseWhichMayAnswerItOrLetItStand() {
        Backoff backoff = new Backoff(30_000);
        List<Throwable> offered = new ArrayList<>();
        TarnException moved = new TarnException(ErrorCode.MOVED, "moved");
        assertThat(backoff.retrying(() -> CompletableFuture.failedFuture(moved), e -> {
            offered.add(e);
            return CompletableFuture.completedFuture("elsewhere");
        })).succeedsWithin(WAIT).isEqualTo("elsewhere");
        assertThat(offered).containsExactly(moved);

        TarnException missing = new TarnException(ErrorCode.FILE_NOT_FOUND, "no such file: '/x'");
        assertThat(backoff.retrying(() -> CompletableFuture.<String>failedFuture(missing), e -> null))
                .failsWithin(WAIT).withThrowableOfType(ExecutionException.class).withCause(missing);

        Attempts busy = new Attempts(2);
        offered.clear();
        assertThat(backoff.retrying(busy::call, e -> {
            offered.add(e);
            return null;
        })).succeedsWithin(WAIT).isEqualTo("done");
        assertThat(offered).as("RETRY is retried, success is not offered").isEmpty();
    }

    @Test
    void retryAnswersAreTriedAgainAfterGrowingPauses() {
        Attempts busy = new Attempts(5);
        assertThat(new Backoff(30_000).retrying(busy::call, null)).succeedsWithin(WAIT).isEqualTo("done");
        assertThat(busy.count()).isEqualTo(6);
        long expected = Backoff.FIRST_PAUSE_MS;
        for (int i = 1; i < busy.count(); i++) {
            assertThat(busy.millisBetween(i - 1, i)).as("pause before attempt %d", i + 1)
                    .isGreaterThanOrEqualTo(expected);
            expected = Backoff.nextPause(expected);
        }
    }

    @Test
    void retryingStopsOnceTheTimeoutHasPassed() throws Exception {
        Attempts busy = new Attempts(Integer.MAX_VALUE);
        long start = System.nanoTime();
        CompletableFuture<String> f = new Backoff(100).retrying(busy::call, null);
        assertThat(failureCode(f)).as("the last RETRY is the answer").isEqualTo(ErrorCode.RETRY);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(elapsedMs).as("tried until the timeout").isGreaterThanOrEqualTo(100);
        // Attempts start at 0, 1, 3, 7, 15, 31, 63 and 127 ms at the earliest: the RETRY of the 8th
        // comes after the timeout. Slower pauses only make fewer attempts.
        assertThat(busy.count()).isBetween(2, 8);
    }

    @Test
    void aTimeoutOfZeroMakesOneAttempt() throws Exception {
        Attempts busy = new Attempts(Integer.MAX_VALUE);
        assertThat(failureCode(new Backoff(0).retrying(busy::call, null))).isEqualTo(ErrorCode.RETRY);
        assertThat(busy.count()).isEqualTo(1);
    }
}
