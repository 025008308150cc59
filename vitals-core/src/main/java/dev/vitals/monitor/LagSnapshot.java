package dev.vitals.monitor;

import java.time.Duration;
import java.util.Objects;

/**
 * The lag figures of a {@link LagMonitor} at its latest sample: how late heartbeats ran on the
 * watched scheduler or event loop. Immutable and thread-safe.
 *
 * <p>{@link #max()} and the percentiles cover heartbeats that ran within the last
 * {@link #window()}; percentiles are accurate to one histogram bucket (at most 25 % high, never
 * above the maximum). A heartbeat still pending counts in {@link #current()} and {@link #max()}
 * with the time it has waited so far.
 */
public final class LagSnapshot {
    private final Duration current;
    private final Duration max;
    private final Duration p50;
    private final Duration p90;
    private final Duration p99;
    private final long count;
    private final Duration pendingFor;
    private final Duration window;

    LagSnapshot(Duration current, Duration max, Duration p50, Duration p90, Duration p99, long count,
                Duration pendingFor, Duration window) {
        this.current = current;
        this.max = max;
        this.p50 = p50;
        this.p90 = p90;
        this.p99 = p99;
        this.count = count;
        this.pendingFor = pendingFor;
        this.window = window;
    }

    /**
     * @return the lag now: how long the pending heartbeat has waited, if that is longer than the
     *     latest completed heartbeat's lag, else that lag
     */
    public Duration current() {
        return current;
    }

    /** @return the largest lag within the window, a pending heartbeat's wait included */
    public Duration max() {
        return max;
    }

    /** @return the median lag of heartbeats that ran within the window; zero if none */
    public Duration p50() {
        return p50;
    }

    /** @return the 90th percentile lag within the window; zero if none */
    public Duration p90() {
        return p90;
    }

    /** @return the 99th percentile lag within the window; zero if none */
    public Duration p99() {
        return p99;
    }

    /** @return heartbeats that ran within the window */
    public long count() {
        return count;
    }

    /** @return whether a heartbeat is posted and has not run yet */
    public boolean pending() {
        return !pendingFor.isZero();
    }

    /** @return how long the pending heartbeat has waited; zero when none is pending */
    public Duration pendingFor() {
        return pendingFor;
    }

    /** @return the time window of {@link #max()}, the percentiles and {@link #count()} */
    public Duration window() {
        return window;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LagSnapshot)) {
            return false;
        }
        LagSnapshot s = (LagSnapshot) o;
        return current.equals(s.current) && max.equals(s.max) && p50.equals(s.p50) && p90.equals(s.p90)
                && p99.equals(s.p99) && count == s.count && pendingFor.equals(s.pendingFor) && window.equals(s.window);
    }

    @Override
    public int hashCode() {
        return Objects.hash(current, max, p50, p90, p99, count, pendingFor, window);
    }

    @Override
    public String toString() {
        return "Lag{currentMs=" + current.toMillis() + ", maxMs=" + max.toMillis() + ", p50Ms=" + p50.toMillis()
                + ", p99Ms=" + p99.toMillis() + ", count=" + count + ", pendingMs=" + pendingFor.toMillis() + '}';
    }
}
