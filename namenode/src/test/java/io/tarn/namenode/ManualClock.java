package io.tarn.namenode;

import java.util.concurrent.atomic.AtomicLong;

/** A clock tests advance by hand, so timeouts fire without sleeping. */
public final class ManualClock implements Clock {
    private final AtomicLong now = new AtomicLong(1_000_000);

    @Override
    public long millis() {
        return now.get();
    }

    public void advance(long ms) {
        now.addAndGet(ms);
    }
}
