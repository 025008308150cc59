package dev.vitals.monitor;

import dev.vitals.Check;
import dev.vitals.Clock;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.Names;
import dev.vitals.Scheduler;
import dev.vitals.Status;
import dev.vitals.internal.Logs;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The one template of the monitors. It owns what every monitor shares, so that each monitor
 * keeps only its sampling ({@link #sample(long)}) and its verdict on a snapshot
 * ({@link #assess(Object)}):
 * <ul>
 *   <li>lifecycle: start once with a clock and scheduler, sample at once and then every interval
 *       (fixed delay) on the scheduler, stop on close or when the scheduler rejects a task; a
 *       failing sample is logged and the schedule goes on;</li>
 *   <li>the latest immutable snapshot ({@link #snapshot()}, {@link #publish(Object)});</li>
 *   <li>what the check reads when there is no verdict: {@link #NOT_STARTED} and
 *       {@link #CLOSED} ({@code UNKNOWN}, so that a monitor registered but never started is
 *       noticed) and {@link #NO_SAMPLE_YET} ({@code UP} "starting: no sample yet": a monitor
 *       that has not sampled has no evidence of a stall, and liveness must not fail on
 *       ignorance, DESIGN.md P2); {@link #check()} registers the same UP health for the time
 *       before the registry's first execution of the check;</li>
 *   <li>the settings every builder has: the name (checked by {@link Names}) and the interval.</li>
 * </ul>
 *
 * @param <S> the snapshot type, immutable
 */
abstract class AbstractMonitor<S> implements Monitor {
    static final System.Logger LOG = Logs.get("dev.vitals.monitor");
    /** What the check reads before {@link #start}: UNKNOWN "monitor not started". */
    static final Health NOT_STARTED = Health.unknown("monitor not started");
    /** What the check reads after {@link #close()}: UNKNOWN "monitor closed". */
    static final Health CLOSED = Health.unknown("monitor closed");
    /** What the check reads while started without a sample, and before its first result: UP "starting: no sample yet". */
    static final Health NO_SAMPLE_YET = Health.builder(Status.UP).message("starting: no sample yet").build();
    private static final Duration MIN_CHECK_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MIN_MAX_AGE = Duration.ofSeconds(30);

    private final String name;
    private final Duration interval;
    final long intervalNanos;
    private final HealthCheck healthCheck = this::health;
    private final Object lifecycle = new Object();
    private volatile Clock clock;
    private volatile Scheduler scheduler;
    private volatile boolean started;
    private volatile boolean closed;
    private volatile S latest;
    private Scheduler.Cancellable next; // guarded by lifecycle

    AbstractMonitor(Builder<?> b) {
        this.name = b.name;
        this.interval = b.interval;
        this.intervalNanos = b.interval.toNanos();
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final Duration interval() {
        return interval;
    }

    /** @return the latest snapshot; empty before the first sample */
    public final Optional<S> snapshot() {
        return Optional.ofNullable(latest);
    }

    @Override
    public final void start(Clock clock, Scheduler scheduler) {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(scheduler, "scheduler");
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("monitor '" + name + "' is closed");
            }
            if (started) {
                throw new IllegalStateException("monitor '" + name + "' is already started");
            }
            this.clock = clock;
            this.scheduler = scheduler;
            started = true;
        }
        onStart();
        tick();
    }

    @Override
    public final boolean isRunning() {
        return started && !closed;
    }

    @Override
    public final void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            if (next != null) {
                next.cancel();
                next = null;
            }
        }
        onClose();
    }

    /**
     * The check function: {@link #NOT_STARTED}, {@link #CLOSED}, {@link #NO_SAMPLE_YET}, or the
     * monitor's verdict on the latest snapshot. Reads only; never samples, never blocks.
     */
    @Override
    public final HealthCheck healthCheck() {
        return healthCheck;
    }

    @Override
    public Check.Builder check() {
        Duration checkInterval = interval.compareTo(MIN_CHECK_INTERVAL) < 0 ? MIN_CHECK_INTERVAL : interval;
        Duration maxAge = checkInterval.multipliedBy(3);
        if (maxAge.compareTo(MIN_MAX_AGE) < 0) {
            maxAge = MIN_MAX_AGE;
        }
        return Check.builder(name, healthCheck)
                .groups(defaultGroup())
                .interval(checkInterval)
                .timeout(Duration.ofSeconds(1))
                .maxAge(maxAge)
                .beforeFirstResult(NO_SAMPLE_YET)
                .inline(true); // reads a snapshot: runs on the scheduler, never waits for a check thread
    }

    @Override
    public final String toString() {
        String s = settings();
        return getClass().getSimpleName() + "{" + name + (s.isEmpty() ? "" : ", " + s) + ", latest=" + latest + '}';
    }

    // ---------------------------------------------------------------- what a monitor provides

    /** The group {@link #check()} puts the check in. */
    abstract String defaultGroup();

    /**
     * Takes one sample and {@link #publish(Object) publishes} its snapshot; runs on the scheduler
     * (or in start), never concurrently with itself. Must not block.
     */
    abstract void sample(long now);

    /** The check's verdict on a snapshot. Must only read. */
    abstract Health assess(S snapshot);

    /** The settings shown by {@link #toString()}, e.g. {@code "warnAt=0.9"}; none by default. */
    String settings() {
        return "";
    }

    /** Called once in start, before the first sample. */
    void onStart() {
    }

    /** Called once in close. */
    void onClose() {
    }

    // ---------------------------------------------------------------- for the monitors

    /** Makes {@code snapshot} the latest. */
    final void publish(S snapshot) {
        latest = Objects.requireNonNull(snapshot, "snapshot");
    }

    /** @return the latest snapshot, or null before the first sample */
    final S latest() {
        return latest;
    }

    /**
     * The lifecycle answers, else {@code assess} applied to the latest snapshot: for monitors with
     * more than one check (a lag monitor's bounded check).
     */
    final Health read(Function<? super S, Health> assess) {
        if (closed) {
            return CLOSED;
        }
        if (!started) {
            return NOT_STARTED;
        }
        S s = latest;
        return s == null ? NO_SAMPLE_YET : assess.apply(s);
    }

    private Health health() {
        if (closed) {
            return CLOSED;
        }
        if (!started) {
            return NOT_STARTED;
        }
        S s = latest;
        return s == null ? NO_SAMPLE_YET : assess(s);
    }

    final boolean closed() {
        return closed;
    }

    /** The clock given to start; only valid once started. */
    final Clock clock() {
        return clock;
    }

    /**
     * Schedules a one-off task on the monitor's scheduler unless closed.
     *
     * @return false if closed or the scheduler rejected the task
     */
    final boolean scheduleOnce(long delayNanos, Runnable task) {
        if (closed) {
            return false;
        }
        try {
            scheduler.schedule(delayNanos, task);
            return true;
        } catch (RejectedExecutionException e) {
            LOG.log(Level.DEBUG, "monitor {0}: scheduler rejected a task; stopping", name);
            return false;
        }
    }

    private void tick() {
        if (closed) {
            return;
        }
        try {
            sample(clock.monotonicTime());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "monitor " + name + ": sample failed", e);
        }
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            try {
                next = scheduler.schedule(intervalNanos, this::tick);
            } catch (RejectedExecutionException e) {
                LOG.log(Level.DEBUG, "monitor {0}: scheduler shut down; sampling stops", name);
                next = null;
            }
        }
    }

    // ---------------------------------------------------------------- shared validation

    static Duration requireAtLeast(String monitor, String field, Duration value, Duration min) {
        Objects.requireNonNull(value, field);
        if (value.compareTo(min) < 0) {
            throw new IllegalArgumentException("monitor '" + monitor + "': " + field + " must be at least "
                    + min.toMillis() + " ms, was " + value);
        }
        return value;
    }

    static double requireFraction(String monitor, String field, double value) {
        if (!(value > 0.0 && value <= 1.0)) {
            throw new IllegalArgumentException("monitor '" + monitor + "': " + field
                    + " must be above 0.0 and at most 1.0, was " + value);
        }
        return value;
    }

    /** {@code stallAfter ≥ interval}, checked in the builders' {@code build()}. */
    static void requireStallAfterAtLeastInterval(String monitor, Duration stallAfter, Duration interval) {
        if (stallAfter.compareTo(interval) < 0) {
            throw new IllegalArgumentException("monitor '" + monitor + "': stallAfter must be at least interval ("
                    + interval + "), was " + stallAfter);
        }
    }

    /**
     * The settings every monitor's builder has: the name, validated at once, and the interval.
     * Not thread-safe.
     *
     * @param <B> the concrete builder
     */
    abstract static class Builder<B extends Builder<B>> {
        final String name;
        final Duration minInterval;
        Duration interval;

        Builder(String name, Duration defaultInterval, Duration minInterval) {
            this.name = Names.requireValid("monitor name", name);
            this.interval = defaultInterval;
            this.minInterval = minInterval;
        }

        /**
         * @param interval time between samples, at least the monitor's minimum (1 ms; 10 ms for
         *     {@link ListenerMonitor}, 100 ms for {@link DeadlockMonitor}); default the
         *     monitor's {@code DEFAULT_INTERVAL}
         * @return this builder
         * @throws NullPointerException if {@code interval} is null
         * @throws IllegalArgumentException "monitor '&lt;name&gt;': interval must be at least
         *     &lt;min&gt; ms, was &lt;interval&gt;" if it is under the minimum
         */
        public final B interval(Duration interval) {
            this.interval = requireAtLeast(name, "interval", interval, minInterval);
            return self();
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }
    }
}
