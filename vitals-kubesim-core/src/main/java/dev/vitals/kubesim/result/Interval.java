package dev.vitals.kubesim.result;

import java.time.Duration;
import java.util.Objects;

/**
 * A span of simulated time, {@code [from, to)}, measured from the simulation's start.
 * Immutable.
 *
 * @param from where it begins, ≥ 0
 * @param to where it ends, ≥ {@code from}
 */
public record Interval(Duration from, Duration to) {
    /**
     * @param from where it begins, ≥ 0
     * @param to where it ends, ≥ {@code from}
     * @throws IllegalArgumentException when {@code from} is negative or {@code to} before it
     */
    public Interval {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (from.isNegative() || to.compareTo(from) < 0) {
            throw new IllegalArgumentException("an interval needs 0 ≤ from ≤ to, was " + from + ".." + to);
        }
    }

    /** @return {@code to − from} */
    public Duration length() {
        return to.minus(from);
    }

    /**
     * @param t a time since the start
     * @return whether {@code from ≤ t < to}
     */
    public boolean contains(Duration t) {
        return t.compareTo(from) >= 0 && t.compareTo(to) < 0;
    }

    static Interval ofSeconds(double from, double to) {
        return new Interval(seconds(from), seconds(Math.max(from, to)));
    }

    static Duration seconds(double s) {
        return Duration.ofNanos(Math.round(s * 1e9));
    }

    static double toSeconds(Duration d) {
        return d.toNanos() / 1e9;
    }
}
