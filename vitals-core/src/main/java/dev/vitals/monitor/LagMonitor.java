package dev.vitals.monitor;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.Status;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Measures how late work runs on a scheduler or event loop: every interval it posts a heartbeat
 * task to the watched executor and records how long after posting the heartbeat ran (current lag,
 * maximum and percentiles over a window).
 *
 * <p>At most one heartbeat is outstanding: while one is pending nothing more is posted, so a
 * blocked loop never accumulates heartbeats, and the pending heartbeat's wait grows until it runs.
 * A heartbeat the executor rejects counts as pending from the first rejection and is posted again
 * at each interval. The heartbeat itself reads the clock and writes two fields: no allocation, no
 * lock, on the watched thread.
 *
 * <p>Two checks:
 * <ul>
 *   <li>{@link #healthCheck()} (liveness, via {@link #check()}): {@link Status#DOWN} only when a
 *       heartbeat has been pending for at least {@code stallAfter} (default 60 s): the loop is
 *       stuck, a restart cures it. High lag alone never fails liveness.</li>
 *   <li>{@link #healthCheck(Duration)} for readiness or a custom group: DOWN when the current lag
 *       (a pending wait included) reaches a lower bound of your choice.</li>
 * </ul>
 * Details: {@code lagMs}, {@code maxMs}, {@code p50Ms}, {@code p99Ms}, {@code pendingMs} and the
 * bound. Detection happens within the bound plus one interval.
 *
 * <pre>{@code
 * LagMonitor loop = LagMonitor.forExecutor("event-loop", nettyEventLoop).build(); // any Executor
 * LagMonitor timers = LagMonitor.forScheduler("timers", scheduledExecutorService).build();
 * }</pre>
 *
 * <p>Thread-safe. Defaults: interval 1 s, stallAfter 60 s, window 60 s.
 */
public final class LagMonitor extends AbstractMonitor<LagSnapshot> {
    /** Private: a check that synchronises on this monitor cannot stop its sampling (issue 30). */
    private final Object lock = new Object();
    /** Default interval between heartbeats: 1 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /** Default time a heartbeat may be pending before liveness fails: 60 s. */
    public static final Duration DEFAULT_STALL_AFTER = Duration.ofSeconds(60);
    /** Default window of the maximum and percentiles: 60 s. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);
    private static final int SLOTS = 6;

    private final Consumer<Runnable> poster;
    private final Duration stallAfter;
    private final Duration window;
    private final WindowedHistogram histogram;
    private final Runnable heartbeat = this::beat;

    // Heartbeat hand-off: the sampler writes dueAt then postSeq; the heartbeat writes ranAt then ranSeq.
    private volatile long dueAt;
    private volatile long postSeq;
    private volatile long ranAt;
    private volatile long ranSeq;

    // Guarded by this (sampler only).
    private long recordedSeq;
    private long lastLag;
    private boolean rejected;

    private LagMonitor(Builder b) {
        super(b);
        this.poster = b.poster;
        this.stallAfter = b.stallAfter;
        this.window = b.window;
        this.histogram = new WindowedHistogram(b.window.toNanos(), SLOTS);
    }

    /**
     * Watches any {@link Executor} (a Netty or Vert.x event loop, a single-thread executor): the
     * heartbeat is handed to {@link Executor#execute(Runnable)}.
     *
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @param executor the executor to watch
     * @return a builder with the defaults
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder forExecutor(String name, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        return new Builder(name, executor::execute);
    }

    /**
     * Watches a {@link ScheduledExecutorService} through its delayed-task path: the heartbeat is
     * scheduled with a zero delay, so the lag is how late a due timer task ran.
     *
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @param scheduler the scheduled executor to watch
     * @return a builder with the defaults
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder forScheduler(String name, ScheduledExecutorService scheduler) {
        Objects.requireNonNull(scheduler, "scheduler");
        return new Builder(name, task -> scheduler.schedule(task, 0, TimeUnit.NANOSECONDS));
    }

    /** @return how long a heartbeat may be pending before the liveness check fails */
    public Duration stallAfter() {
        return stallAfter;
    }

    /**
     * A check with a lower bound, for readiness or a custom group: DOWN when the current lag (a
     * pending heartbeat's wait included) is at least {@code failAt}, else UP.
     *
     * @param failAt the bound, at least 1 ms
     * @return the check function; it reads the latest snapshot only
     * @throws NullPointerException if {@code failAt} is null
     * @throws IllegalArgumentException if {@code failAt} is under 1 ms
     */
    public HealthCheck healthCheck(Duration failAt) {
        requireAtLeast(name(), "failAt", failAt, Duration.ofMillis(1));
        Function<LagSnapshot, Health> bounded = s -> health(s, failAt, false);
        return () -> read(bounded);
    }

    @Override
    String defaultGroup() {
        return Groups.LIVENESS;
    }

    private void beat() {
        ranAt = clock().monotonicTime();
        ranSeq = postSeq;
    }

    @Override
    void sample(long now) {
        synchronized (lock) {
            long ran = ranSeq;
            if (ran == postSeq) {
                if (ran > recordedSeq) {
                    long at = ranAt;
                    lastLag = Math.max(0, at - dueAt);
                    histogram.record(at, lastLag);
                    recordedSeq = ran;
                }
                dueAt = now;
                postSeq = ran + 1;
                post();
            } else if (rejected) {
                post();
            }
            long pendingFor = ranSeq != postSeq ? Math.max(0, now - dueAt) : 0;
            long[] q = histogram.quantiles(now, 0.5, 0.9, 0.99);
            long max = Math.max(histogram.max(now), pendingFor);
            publish(new LagSnapshot(Duration.ofNanos(Math.max(lastLag, pendingFor)), Duration.ofNanos(max),
                    Duration.ofNanos(q[0]), Duration.ofNanos(q[1]), Duration.ofNanos(q[2]), histogram.count(now),
                    Duration.ofNanos(pendingFor), window));
        }
    }

    private void post() {
        try {
            poster.accept(heartbeat);
            rejected = false;
        } catch (RejectedExecutionException e) {
            if (!rejected) {
                LOG.log(Level.DEBUG, "lag monitor {0}: heartbeat rejected; counting it as pending", name());
            }
            rejected = true;
        }
    }

    /** The liveness verdict of {@link #healthCheck()}: DOWN only when a heartbeat has been pending for at least stallAfter. */
    @Override
    Health assess(LagSnapshot s) {
        return health(s, stallAfter, true);
    }

    private static Health health(LagSnapshot s, Duration bound, boolean liveness) {
        Duration measured = liveness ? s.pendingFor() : s.current();
        boolean fail = measured.compareTo(bound) >= 0;
        Health.Builder b = Health.builder(fail ? Status.DOWN : Status.UP)
                .detail("lagMs", s.current().toMillis())
                .detail("maxMs", s.max().toMillis())
                .detail("p50Ms", s.p50().toMillis())
                .detail("p99Ms", s.p99().toMillis())
                .detail("pendingMs", s.pendingFor().toMillis())
                .detail(liveness ? "stallAfterMs" : "failAtMs", bound.toMillis());
        if (fail) {
            b.message(liveness
                    ? "stalled: heartbeat pending for " + measured.toMillis() + " ms"
                    : "lag " + measured.toMillis() + " ms, at least " + bound.toMillis() + " ms");
        }
        return b.build();
    }

    @Override
    String settings() {
        return "stallAfter=" + stallAfter;
    }

    /** Builds a {@link LagMonitor}. Not thread-safe. */
    public static final class Builder extends AbstractMonitor.Builder<Builder> {
        private final Consumer<Runnable> poster;
        private Duration stallAfter = DEFAULT_STALL_AFTER;
        private Duration window = DEFAULT_WINDOW;

        private Builder(String name, Consumer<Runnable> poster) {
            super(name, DEFAULT_INTERVAL, Duration.ofMillis(1));
            this.poster = poster;
        }

        /**
         * @param stallAfter how long a heartbeat may be pending before the liveness check is DOWN,
         *     at least 1 ms and at least the interval (checked in {@link #build()}); default 60 s
         * @return this builder
         * @throws NullPointerException if {@code stallAfter} is null
         * @throws IllegalArgumentException if it is under 1 ms
         */
        public Builder stallAfter(Duration stallAfter) {
            this.stallAfter = requireAtLeast(name, "stallAfter", stallAfter, Duration.ofMillis(1));
            return this;
        }

        /**
         * @param window time covered by the maximum and the percentiles, at least 1 s; default 60 s
         * @return this builder
         * @throws NullPointerException if {@code window} is null
         * @throws IllegalArgumentException if it is under 1 s
         */
        public Builder window(Duration window) {
            this.window = requireAtLeast(name, "window", window, Duration.ofSeconds(1));
            return this;
        }

        /**
         * @return the monitor, not started
         * @throws IllegalArgumentException if stallAfter is shorter than the interval
         */
        public LagMonitor build() {
            requireStallAfterAtLeastInterval(name, stallAfter, interval);
            return new LagMonitor(this);
        }
    }
}
