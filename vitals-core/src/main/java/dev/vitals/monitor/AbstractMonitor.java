package dev.vitals.monitor;

import dev.vitals.Check;
import dev.vitals.Clock;
import dev.vitals.Health;
import dev.vitals.Scheduler;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

/**
 * Lifecycle shared by the monitors: start once with a clock and scheduler, sample at once and
 * then every interval (fixed delay) on the scheduler, stop on close or when the scheduler
 * rejects a task. A failing sample is logged and the schedule goes on.
 */
abstract class AbstractMonitor implements Monitor {
    static final System.Logger LOG = System.getLogger("dev.vitals.monitor");
    static final Health NOT_STARTED = Health.unknown("monitor not started");
    static final Health CLOSED = Health.unknown("monitor closed");
    private static final Duration MIN_CHECK_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MIN_MAX_AGE = Duration.ofSeconds(30);

    private final String name;
    private final Duration interval;
    final long intervalNanos;
    private final Object lifecycle = new Object();
    private volatile Clock clock;
    private volatile Scheduler scheduler;
    private volatile boolean started;
    private volatile boolean closed;
    private Scheduler.Cancellable next; // guarded by lifecycle

    AbstractMonitor(String name, Duration interval) {
        this.name = name;
        this.interval = interval;
        this.intervalNanos = interval.toNanos();
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final Duration interval() {
        return interval;
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

    @Override
    public Check.Builder check() {
        Duration checkInterval = interval.compareTo(MIN_CHECK_INTERVAL) < 0 ? MIN_CHECK_INTERVAL : interval;
        Duration maxAge = checkInterval.multipliedBy(3);
        if (maxAge.compareTo(MIN_MAX_AGE) < 0) {
            maxAge = MIN_MAX_AGE;
        }
        return Check.builder(name, healthCheck())
                .groups(defaultGroup())
                .interval(checkInterval)
                .timeout(Duration.ofSeconds(1))
                .maxAge(maxAge)
                .inline(true); // reads a snapshot: runs on the scheduler, never waits for a check thread
    }

    /** The group {@link #check()} puts the check in. */
    abstract String defaultGroup();

    /** Takes one sample and publishes it; runs on the scheduler (or in start). Must not block. */
    abstract void sample(long now);

    /** Called once in start, before the first sample. */
    void onStart() {
    }

    /** Called once in close. */
    void onClose() {
    }

    /** The health a check shows while not running, or {@code null} while running. */
    final Health lifecycleHealth() {
        if (closed) {
            return CLOSED;
        }
        return started ? null : NOT_STARTED;
    }

    final boolean closed() {
        return closed;
    }

    /** The clock given to start; only valid once started. */
    final Clock clock() {
        return clock;
    }

    /** The scheduler given to start; only valid once started. */
    final Scheduler scheduler() {
        return scheduler;
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

    static String requireName(String name) {
        Objects.requireNonNull(name, "name");
        // The same rule as check names: the monitor's name is its check's default name.
        Check.builder(name, () -> Health.up());
        return name;
    }

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

    static long millis(long nanos) {
        return nanos / 1_000_000L;
    }
}
