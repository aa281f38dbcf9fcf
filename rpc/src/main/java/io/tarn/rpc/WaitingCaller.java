package io.tarn.rpc;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Marks the calls a thread issues while it is about to wait for their answers (a blocking
 * namespace call). A transport may then make such a call on the caller's own thread, sending it and
 * reading its answer there, instead of handing both to an I/O thread and sleeping until woken: the
 * future it returns is then already complete. Calls issued on other threads, or outside
 * {@link #during}, are made as usual.
 */
public final class WaitingCaller {
    private static final ThreadLocal<WaitingCaller> CURRENT = ThreadLocal.withInitial(WaitingCaller::new);

    /** Whether the thread is inside {@link #during}. */
    private boolean waiting;
    /** How long the thread may poll for an answer before it sleeps. */
    private long spinNanos;
    /** Whether it may go on polling (false once other threads wait too). */
    private BooleanSupplier keepPolling;

    private WaitingCaller() {
    }

    /**
     * Runs {@code calls} on this thread, marked as the calls of a caller that waits for them.
     *
     * @param spinNanos   how long the thread may poll for an answer before sleeping (0: sleep at once)
     * @param keepPolling asked while polling: false ends the polling early (when other threads of the
     *                    application wait too, and one core polling would take CPU from them)
     */
    public static <T> T during(long spinNanos, BooleanSupplier keepPolling, Supplier<T> calls) {
        WaitingCaller w = CURRENT.get();
        boolean outerWaiting = w.waiting;
        long outerSpin = w.spinNanos;
        BooleanSupplier outerKeep = w.keepPolling;
        w.waiting = true;
        w.spinNanos = spinNanos;
        w.keepPolling = keepPolling;
        try {
            return calls.get();
        } finally {
            w.waiting = outerWaiting;
            w.spinNanos = outerSpin;
            w.keepPolling = outerKeep;
        }
    }

    /** Whether this thread, polling for the answer of a call it made inside {@link #during}, may go on. */
    public static boolean keepPolling() {
        WaitingCaller w = CURRENT.get();
        return w.waiting && w.keepPolling.getAsBoolean();
    }

    /**
     * How long this thread may poll for the answer of a call it issues now, or -1 when it is not
     * inside {@link #during} (it will not wait for the answer at once).
     */
    public static long spinNanos() {
        WaitingCaller w = CURRENT.get();
        return w.waiting ? w.spinNanos : -1;
    }
}
