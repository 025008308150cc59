package dev.vitals.bench;

import dev.vitals.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock on which every result has expired: each monotonic reading is 2 ms later than the last on
 * top of real time, so a 1 ms TTL never reuses a result and each on-demand evaluation really runs
 * its checks. Wall time is the system's. Thread-safe. Used by the registry benchmark and the
 * allocation budget.
 */
public final class AlwaysExpiredClock implements Clock {
    private final AtomicLong skew = new AtomicLong();

    @Override
    public long wallTime() {
        return System.currentTimeMillis();
    }

    @Override
    public long monotonicTime() {
        return System.nanoTime() + skew.addAndGet(2_000_000L);
    }
}
