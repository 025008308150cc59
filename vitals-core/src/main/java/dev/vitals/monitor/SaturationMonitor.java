package dev.vitals.monitor;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import java.time.Duration;
import java.util.Objects;

/**
 * Saturation of one pool or limiter as a sampled gauge (DESIGN.md P7): busy, capacity, queued and
 * saturation (busy ÷ capacity, 0.0–1.0), read from a {@link SaturationSource} once per interval
 * on Vitals' scheduler.
 *
 * <p>Its check reports {@link Status#UP} below the warning level and {@link Status#DEGRADED} at
 * or above it, with the figures in the details ({@code busy}, {@code capacity}, {@code queued},
 * {@code saturation}, {@code warnAt}). DEGRADED passes a probe: the point is to make saturation
 * visible long before anything fails.
 *
 * <p><b>Readiness or a custom group, never liveness.</b> A saturated pool is a busy process, not
 * a broken one: restarting it throws away the work in flight and moves its load onto the other
 * replicas, which then saturate and get restarted in turn (field case C08, the restart cascade
 * of DESIGN.md section 1). Use a {@link ProgressWatchdog} for the liveness question "is the pool
 * still completing work?". {@link #check()} therefore registers in {@code readiness}; even there
 * it only degrades, so shedding a saturated replica is an explicit choice (wrap the health in
 * your own check if you want that).
 *
 * <pre>{@code
 * SaturationMonitor workers = SaturationMonitor.builder("workers", SaturationSource.of(pool))
 *         .warnAt(0.9).build();
 * registryBuilder.register(workers.check().build());
 * ...
 * workers.start(registry);
 * workers.snapshot().ifPresent(s -> System.out.println(s.busy() + "/" + s.capacity()));
 * }</pre>
 *
 * <p>Thread-safe. Defaults: interval 1 s, warnAt 0.9.
 */
public final class SaturationMonitor extends AbstractMonitor<SaturationSnapshot> {
    /** Default interval between samples: 1 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /** Default warning level: 0.9. */
    public static final double DEFAULT_WARN_AT = 0.9;

    private final SaturationSource source;
    private final double warnAt;

    private SaturationMonitor(Builder b) {
        super(b);
        this.source = b.source;
        this.warnAt = b.warnAt;
    }

    /**
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @param source where to read the figures
     * @return a builder with the defaults
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder builder(String name, SaturationSource source) {
        return new Builder(name, source);
    }

    /** @return the warning level, in (0.0, 1.0] */
    public double warnAt() {
        return warnAt;
    }

    @Override
    String defaultGroup() {
        return Groups.READINESS;
    }

    @Override
    void sample(long now) {
        publish(Objects.requireNonNull(source.sample(), "saturation source returned null"));
    }

    @Override
    Health assess(SaturationSnapshot s) {
        double saturation = s.saturation();
        boolean warn = saturation >= warnAt;
        Health.Builder b = Health.builder(warn ? Status.DEGRADED : Status.UP)
                .detail("busy", s.busy())
                .detail("capacity", s.capacity())
                .detail("queued", s.queued())
                .detail("saturation", saturation)
                .detail("warnAt", warnAt);
        if (warn) {
            b.message("saturated: " + s.busy() + "/" + s.capacity() + " busy, " + s.queued() + " queued");
        }
        return b.build();
    }

    @Override
    String settings() {
        return "warnAt=" + warnAt;
    }

    /** Builds a {@link SaturationMonitor}. Not thread-safe. */
    public static final class Builder extends AbstractMonitor.Builder<Builder> {
        private final SaturationSource source;
        private double warnAt = DEFAULT_WARN_AT;

        private Builder(String name, SaturationSource source) {
            super(name, DEFAULT_INTERVAL, Duration.ofMillis(1));
            this.source = Objects.requireNonNull(source, "source");
        }

        /**
         * @param warnAt saturation at or above which the check is DEGRADED, above 0.0 and at most
         *     1.0; default 0.9
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder warnAt(double warnAt) {
            this.warnAt = requireFraction(name, "warnAt", warnAt);
            return this;
        }

        /** @return the monitor, not started */
        public SaturationMonitor build() {
            return new SaturationMonitor(this);
        }
    }
}
