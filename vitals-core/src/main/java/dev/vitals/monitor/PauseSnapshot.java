package dev.vitals.monitor;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The figures of a {@link PauseDetector} over its window: how much later than asked its
 * measuring thread woke up (a stop-the-world collection, a safepoint, CPU starvation or a
 * frozen container all show the same way). Immutable and thread-safe.
 */
public final class PauseSnapshot {
    private final Duration max;
    private final Duration p50;
    private final Duration p99;
    private final Duration p999;
    private final long samples;
    private final List<Pause> longest;
    private final Duration window;

    PauseSnapshot(Duration max, Duration p50, Duration p99, Duration p999, long samples, List<Pause> longest,
                  Duration window) {
        this.max = max;
        this.p50 = p50;
        this.p99 = p99;
        this.p999 = p999;
        this.samples = samples;
        this.longest = List.copyOf(longest);
        this.window = window;
    }

    /** @return the longest pause within the window; zero if none */
    public Duration max() {
        return max;
    }

    /** @return the median overshoot within the window */
    public Duration p50() {
        return p50;
    }

    /** @return the 99th percentile overshoot within the window */
    public Duration p99() {
        return p99;
    }

    /** @return the 99.9th percentile overshoot within the window */
    public Duration p999() {
        return p999;
    }

    /** @return measurements (wake-ups) within the window */
    public long samples() {
        return samples;
    }

    /**
     * @return the longest notable pauses within the window (at least the detector's
     *     {@code notableAt}), longest first, at most {@value PauseDetector#LONGEST}
     */
    public List<Pause> longest() {
        return longest;
    }

    /** @return the time window these figures cover */
    public Duration window() {
        return window;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PauseSnapshot)) {
            return false;
        }
        PauseSnapshot s = (PauseSnapshot) o;
        return max.equals(s.max) && p50.equals(s.p50) && p99.equals(s.p99) && p999.equals(s.p999)
                && samples == s.samples && longest.equals(s.longest) && window.equals(s.window);
    }

    @Override
    public int hashCode() {
        return Objects.hash(max, p50, p99, p999, samples, longest, window);
    }

    @Override
    public String toString() {
        return "Pauses{maxMs=" + max.toMillis() + ", p99Ms=" + p99.toMillis() + ", samples=" + samples
                + ", longest=" + longest + '}';
    }

    /** One notable pause: how long, and when it ended (wall-clock time). Immutable. */
    public static final class Pause {
        private final Duration duration;
        private final Instant endedAt;

        Pause(Duration duration, Instant endedAt) {
            this.duration = duration;
            this.endedAt = endedAt;
        }

        /** @return how much longer than asked the measuring thread slept */
        public Duration duration() {
            return duration;
        }

        /** @return wall-clock time at which the pause was measured (its end) */
        public Instant endedAt() {
            return endedAt;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Pause)) {
                return false;
            }
            Pause p = (Pause) o;
            return duration.equals(p.duration) && endedAt.equals(p.endedAt);
        }

        @Override
        public int hashCode() {
            return Objects.hash(duration, endedAt);
        }

        @Override
        public String toString() {
            return duration.toMillis() + " ms at " + endedAt;
        }
    }
}
