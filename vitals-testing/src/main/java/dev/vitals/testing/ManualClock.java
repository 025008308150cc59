package dev.vitals.testing;

import dev.vitals.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * A {@link Clock} that moves only when told to. Wall time starts at 2026-01-01T00:00:00Z and
 * monotonic time at 0; both advance together. Thread-safe.
 */
public final class ManualClock implements Clock {
    private static final long WALL_START_MILLIS = 1_767_225_600_000L;
    // written under the lock, read without it (a volatile read: the fleet model reads the clock
    // several times per replica and step, issue 37)
    private volatile long nanos;

    /** @return a clock at the default start */
    public static ManualClock create() {
        return new ManualClock();
    }

    @Override
    public long wallTime() {
        return WALL_START_MILLIS + nanos / 1_000_000L;
    }

    @Override
    public long monotonicTime() {
        return nanos;
    }

    /**
     * Moves both times forward. Use {@link ManualScheduler#advance(Duration)} instead when a
     * scheduler is driven by this clock, so that due tasks run.
     *
     * @param d how far, not negative
     * @throws IllegalArgumentException if {@code d} is negative
     */
    public synchronized void add(Duration d) {
        Objects.requireNonNull(d, "d");
        if (d.isNegative()) {
            throw new IllegalArgumentException("a clock cannot go back, was " + d);
        }
        nanos += d.toNanos();
    }

    synchronized void setMonotonic(long to) {
        if (to > nanos) {
            nanos = to;
        }
    }

    /** {@link #setMonotonic} for a clock only one thread uses ({@link ManualScheduler#confined()}): no lock. */
    void setMonotonicConfined(long to) {
        if (to > nanos) {
            nanos = to;
        }
    }
}
