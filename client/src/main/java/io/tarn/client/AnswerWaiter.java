package io.tarn.client;

import io.tarn.common.config.TarnKeys;
import io.tarn.rpc.IoThreads;
import io.tarn.rpc.WaitingCaller;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * How a thread of a client waits for an answer: the blocking half of every blocking call.
 *
 * <p>One per {@link TarnClient} ({@link TarnClient#answers()}): its blocking namespace calls and the
 * streams' hsync and close wait through {@link #awaitAnswer}; the streams' data waits and the
 * positional reads use the static {@link #await} and {@link #refuseOnIoThread}. Guarantees: no
 * thread waits on a transport I/O thread (it is refused with {@link IllegalStateException} before
 * anything is sent); at most one thread per client polls for its answer, the others sleep at once;
 * an interrupted wait leaves the call in flight; a failure is rethrown as the typed
 * {@link IOException} it carries. Thread-safe; waiting allocates nothing beyond the call itself.
 */
final class AnswerWaiter {
    /** {@link TarnKeys#CLIENT_WAIT_SPIN} in nanoseconds. */
    private final long spinNanos;
    /** Threads in {@link #awaitAnswer}: only a lone one polls. */
    private final AtomicInteger waiters = new AtomicInteger();
    /** Waits in {@link #awaitAnswer} that polled (for tests and the curious). */
    private final LongAdder polls = new LongAdder();
    /** While polling in {@link #awaitAnswer}: no other thread of this client waits for an answer. */
    private final BooleanSupplier alone = () -> waiters.get() == 1;

    /** @param spinNanos how long a lone waiter polls before it sleeps (0: never polls) */
    AnswerWaiter(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    /**
     * Makes a blocking namespace call: issues it through {@code call} and waits for its answer.
     * The call is issued marked as one whose caller waits ({@link WaitingCaller}), so the transport
     * may send it and read its answer on this thread ({@link TarnKeys#CLIENT_WAIT_DIRECT}); the
     * future is then complete when {@code call} returns. Otherwise, when no other thread of this
     * client is waiting for an answer, it polls the future first, up to
     * {@link TarnKeys#CLIENT_WAIT_SPIN}: a namespace call is one or two round trips of tens of
     * microseconds, and a thread that sleeps meanwhile must be woken by the I/O thread, which on a VM
     * whose idle vCPUs halt costs about as much again (docs/performance-history.md). One poller per client at
     * most, so many waiting threads (or a busy application) never have several cores spinning; the
     * others sleep at once, and the poller stops polling once another thread waits too.
     */
    <T> T awaitAnswer(Supplier<CompletableFuture<T>> call) throws IOException {
        refuseOnIoThread();
        boolean first = waiters.incrementAndGet() == 1;
        try {
            long spin = first ? spinNanos : 0;
            if (spin > 0) {
                polls.increment();
            }
            CompletableFuture<T> f = WaitingCaller.during(spin, alone, call);
            if (spin > 0 && !f.isDone()) {
                long start = System.nanoTime();
                while (!f.isDone() && System.nanoTime() - start < spin && alone.getAsBoolean()) {
                    Thread.onSpinWait();
                }
            }
            return await(f);
        } finally {
            waiters.decrementAndGet();
        }
    }

    /** Threads now waiting in {@link #awaitAnswer}. */
    int waiters() {
        return waiters.get();
    }

    /** Waits in {@link #awaitAnswer} so far that were allowed to poll before sleeping. */
    long polls() {
        return polls.sum();
    }

    /**
     * Waits for a future and rethrows its failure as the typed IOException it carries.
     *
     * <p>Refuses to wait on a transport I/O thread (inside a future's callback): the answer would
     * have to be read by a thread that is busy waiting, so the call would hang for good. An
     * interrupted wait leaves the future alone rather than cancelling it: the call stays in flight
     * either way, and a cancelled future would drop a block buffer its answer carries, which the
     * caller releases when the future completes.
     */
    static <T> T await(CompletableFuture<T> f) throws IOException {
        if (!f.isDone()) {
            refuseOnIoThread();
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException io = new InterruptedIOException("interrupted while waiting for Tarn");
            io.initCause(e);
            throw io;
        } catch (ExecutionException e) {
            throw Failures.asIOException(e.getCause());
        }
    }

    /** Throws when the calling thread is a transport I/O thread, where waiting for an answer hangs. */
    static void refuseOnIoThread() {
        if (IoThreads.onIoThread()) {
            throw new IllegalStateException("blocking Tarn call on transport I/O thread "
                    + Thread.currentThread().getName()
                    + ": use the asynchronous API (or another executor) in callbacks");
        }
    }
}
