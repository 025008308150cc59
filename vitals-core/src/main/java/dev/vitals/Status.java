package dev.vitals;

/**
 * The status of one health or of a whole report, ordered from best to worst:
 * {@code UP < DEGRADED < DOWN < UNKNOWN}.
 *
 * <p>For probes, {@code UP} and {@code DEGRADED} pass (HTTP 200) and {@code DOWN} and
 * {@code UNKNOWN} fail (HTTP 503): a status nobody could establish never counts as healthy.
 */
public enum Status {
    /** The check passed. */
    UP,
    /** The check passed with a warning; a non-critical failure also degrades its group. */
    DEGRADED,
    /** The check failed, threw, returned nothing or timed out. */
    DOWN,
    /** No result is available: not run yet, or the latest result is older than its max age. */
    UNKNOWN;

    /**
     * Whether a probe reading this status passes.
     *
     * @return {@code true} for {@link #UP} and {@link #DEGRADED}
     */
    public boolean isHealthy() {
        return this == UP || this == DEGRADED;
    }

    /**
     * The worse of two statuses, in the order {@code UP < DEGRADED < DOWN < UNKNOWN}.
     *
     * @param other another status
     * @return the worse of {@code this} and {@code other}
     */
    public Status worst(Status other) {
        return other.ordinal() > ordinal() ? other : this;
    }
}
