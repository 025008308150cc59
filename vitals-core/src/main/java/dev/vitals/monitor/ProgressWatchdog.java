package dev.vitals.monitor;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import java.time.Duration;
import java.util.Objects;

/**
 * Tells an executor that is saturated but still completing work from one that is stalled
 * (DESIGN.md P2): <em>stalled</em> means there was work to do (a task running or queued) at every
 * sample for at least {@code stallAfter}, and no task completed in that time.
 *
 * <p>Rule, applied at each sample (once per interval on Vitals' scheduler): the clock of "time
 * without progress" restarts whenever the completed count has grown since the previous sample or
 * the executor is idle (nothing running, nothing queued). Its check is {@link Status#DOWN}
 * "stalled" once that time reaches {@code stallAfter}, else {@link Status#UP}; a pool at 40/40
 * that keeps completing tasks stays UP however full its queue (that is saturation, see
 * {@link SaturationMonitor}). Details: {@code completed}, {@code busy}, {@code queued},
 * {@code withoutProgressMs}, {@code stallAfterMs}.
 *
 * <p>Choose {@code stallAfter} above the longest legitimate task: a pool whose only task runs
 * for 5 minutes has completed nothing for 5 minutes. Detection happens within {@code stallAfter}
 * plus one interval of the stall (plus the check's own interval).
 *
 * <p>{@link #check()} registers in {@code liveness}: a restart cures a stalled executor.
 * Thread-safe. Defaults: interval 1 s, stallAfter 60 s.
 */
public final class ProgressWatchdog extends AbstractMonitor<WatchdogSnapshot> {
    /** Private: a check that synchronises on this monitor cannot stop its sampling (issue 30). */
    private final Object lock = new Object();
    /** Default interval between samples: 1 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /** Default time with work and without progress after which an executor is stalled: 60 s. */
    public static final Duration DEFAULT_STALL_AFTER = Duration.ofSeconds(60);

    private final ProgressSource source;
    private final Duration stallAfter;
    private final long stallAfterNanos;

    // Written only by sample(), which the lifecycle never runs concurrently with itself.
    private long lastCompleted = -1;
    private long progressAt;

    private ProgressWatchdog(Builder b) {
        super(b);
        this.source = b.source;
        this.stallAfter = b.stallAfter;
        this.stallAfterNanos = b.stallAfter.toNanos();
    }

    /**
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @param source where to read completed, busy and queued counts
     * @return a builder with the defaults
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder builder(String name, ProgressSource source) {
        return new Builder(name, source);
    }

    /** @return time with work and without progress after which the executor counts as stalled */
    public Duration stallAfter() {
        return stallAfter;
    }

    @Override
    String defaultGroup() {
        return Groups.LIVENESS;
    }

    @Override
    void sample(long now) {
        synchronized (lock) {
            ProgressSnapshot p = Objects.requireNonNull(source.sample(), "progress source returned null");
            if (lastCompleted < 0 || p.completed() != lastCompleted || !p.hasWork()) {
                progressAt = now;
            }
            lastCompleted = p.completed();
            long without = Math.max(0, now - progressAt);
            publish(new WatchdogSnapshot(p, Duration.ofNanos(without), p.hasWork() && without >= stallAfterNanos));
        }
    }

    @Override
    Health assess(WatchdogSnapshot s) {
        ProgressSnapshot p = s.progress();
        Health.Builder b = Health.builder(s.stalled() ? Status.DOWN : Status.UP)
                .detail("completed", p.completed())
                .detail("busy", p.busy())
                .detail("queued", p.queued())
                .detail("withoutProgressMs", s.withoutProgress().toMillis())
                .detail("stallAfterMs", stallAfter.toMillis());
        if (s.stalled()) {
            b.message("stalled: no task completed for " + s.withoutProgress().toMillis() + " ms with "
                    + p.busy() + " running and " + p.queued() + " queued");
        }
        return b.build();
    }

    @Override
    String settings() {
        return "stallAfter=" + stallAfter;
    }

    /** Builds a {@link ProgressWatchdog}. Not thread-safe. */
    public static final class Builder extends AbstractMonitor.Builder<Builder> {
        private final ProgressSource source;
        private Duration stallAfter = DEFAULT_STALL_AFTER;

        private Builder(String name, ProgressSource source) {
            super(name, DEFAULT_INTERVAL, Duration.ofMillis(1));
            this.source = Objects.requireNonNull(source, "source");
        }

        /**
         * @param stallAfter time with work to do and no task completed after which the executor is
         *     stalled, at least 1 ms and at least the interval (checked in {@link #build()});
         *     default 60 s
         * @return this builder
         * @throws NullPointerException if {@code stallAfter} is null
         * @throws IllegalArgumentException if it is under 1 ms
         */
        public Builder stallAfter(Duration stallAfter) {
            this.stallAfter = requireAtLeast(name, "stallAfter", stallAfter, Duration.ofMillis(1));
            return this;
        }

        /**
         * @return the watchdog, not started
         * @throws IllegalArgumentException if stallAfter is shorter than the interval
         */
        public ProgressWatchdog build() {
            requireStallAfterAtLeastInterval(name, stallAfter, interval);
            return new ProgressWatchdog(this);
        }
    }
}
