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

    /** How long the thread may poll for an answer before it sleeps. */
    private long spinNanos;
    /** Whether it may go on polling (false once other threads wait too); null outside {@link #during}. */
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
        long outerSpin = w.spinNanos;
        BooleanSupplier outerKeep = w.keepPolling;
        w.spinNanos = spinNanos;
        w.keepPolling = keepPolling;
        try {
            return calls.get();
        } finally {
            w.spinNanos = outerSpin;
            w.keepPolling = outerKeep;
        }
    }

    /**
     * This thread's marks, for a call it issues now, or null when it is not inside {@link #during}
     * (it will not wait for the answer at once). Valid on this thread until the call returns.
     */
    public static WaitingCaller current() {
        WaitingCaller w = CURRENT.get();
        return w.keepPolling == null ? null : w;
    }

    /** How long the caller may poll for the answer before sleeping. */
    public long spinNanos() {
        return spinNanos;
    }

    /** Whether the caller, polling for the answer, may go on. */
    public boolean keepPolling() {
        return keepPolling.getAsBoolean();
    }
}
