package dev.vitals.monitor;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A JVM pause detector in the manner of a hiccup meter: a dedicated daemon thread
 * ({@code vitals-pause-<name>}) sleeps a fixed short {@code resolution} over and over and
 * records by how much each sleep overshot. Anything that stops the JVM or starves it of CPU (a
 * stop-the-world collection, a long safepoint, CPU throttling, a frozen container) shows as an
 * overshoot. The figures (maximum, percentiles, the longest notable pauses) are published as a
 * {@link PauseSnapshot} once per interval on Vitals' scheduler.
 *
 * <p><b>Metrics and details only, by default.</b> The check is {@link Status#UP}, or
 * {@link Status#DEGRADED} (which still passes a probe) when the longest pause within the window
 * reached {@code warnAbove} (default 1 s); {@link #check()} registers it as a non-critical
 * readiness check. A pause is a symptom to look at, not a fault a restart cures, so it never
 * fails a probe unless you wrap it in your own check.
 *
 * <p>Cost: one wake-up per resolution (default 10 ms, so 100 per second) doing a clock read and an
 * O(1) histogram update under an uncontended lock; fixed memory. Details: {@code maxMs},
 * {@code p99Ms}, {@code p999Ms}, {@code samples}, {@code warnAboveMs}.
 *
 * <p>Thread-safe. Defaults: resolution 10 ms, interval 1 s, window 60 s, notableAt 20 ms,
 * warnAbove 1 s.
 */
public final class PauseDetector extends AbstractMonitor<PauseSnapshot> {
    /** The most notable pauses a snapshot lists. */
    public static final int LONGEST = 5;
    /** Default sleep of the measuring thread: 10 ms. */
    public static final Duration DEFAULT_RESOLUTION = Duration.ofMillis(10);
    /** Default time between published snapshots: 1 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /** Default window of the figures: 60 s. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);
    /** Default least pause listed among the longest: 20 ms. */
    public static final Duration DEFAULT_NOTABLE_AT = Duration.ofMillis(20);
    /** Default longest pause above which the check is DEGRADED: 1 s. */
    public static final Duration DEFAULT_WARN_ABOVE = Duration.ofSeconds(1);
    private static final int SLOTS = 6;
    private static final int KEPT = 16;

    private final Duration resolution;
    private final long resolutionNanos;
    private final Duration window;
    private final long windowNanos;
    private final long notableNanos;
    private final Duration warnAbove;

    private final Object lock = new Object();
    // Guarded by lock.
    private final WindowedHistogram histogram;
    private final long[] keptNanos = new long[KEPT];
    private final long[] keptAt = new long[KEPT];
    private final long[] keptWall = new long[KEPT];
    private int keptCount;

    private volatile Thread thread;

    private PauseDetector(Builder b) {
        super(b);
        this.resolution = b.resolution;
        this.resolutionNanos = b.resolution.toNanos();
        this.window = b.window;
        this.windowNanos = b.window.toNanos();
        this.notableNanos = b.notableAt.toNanos();
        this.warnAbove = b.warnAbove;
        this.histogram = new WindowedHistogram(windowNanos, SLOTS);
    }

    /** @return a builder named {@code pauses} with the defaults */
    public static Builder builder() {
        return builder("pauses");
    }

    /**
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @return a builder with the defaults
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** @return the sleep of the measuring thread */
    public Duration resolution() {
        return resolution;
    }

    /** As {@link Monitor#check()}, and non-critical. */
    @Override
    public Check.Builder check() {
        return super.check().critical(false);
    }

    @Override
    String defaultGroup() {
        return Groups.READINESS;
    }

    @Override
    void onStart() {
        Thread t = new Thread(this::measure, "vitals-pause-" + name());
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    @Override
    void onClose() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** @return the measuring thread, while started (for tests) */
    Optional<Thread> thread() {
        return Optional.ofNullable(thread);
    }

    private void measure() {
        long sleepMillis = resolutionNanos / 1_000_000L;
        int sleepNanos = (int) (resolutionNanos % 1_000_000L);
        while (!closed()) {
            long t0 = clock().monotonicTime();
            try {
                Thread.sleep(sleepMillis, sleepNanos);
            } catch (InterruptedException e) {
                if (closed()) {
                    return;
                }
                Thread.interrupted();
                continue;
            }
            long t1 = clock().monotonicTime();
            record(t1, t1 - t0 - resolutionNanos, clock().wallTime());
        }
    }

    /** Records one measurement: the overshoot of a sleep that ended at {@code now}. */
    void record(long now, long overshootNanos, long wallMillis) {
        long v = Math.max(0, overshootNanos);
        synchronized (lock) {
            histogram.record(now, v);
            if (v >= notableNanos) {
                keep(now, v, wallMillis);
            }
        }
    }

    private void keep(long now, long v, long wall) {
        int slot = -1;
        if (keptCount < KEPT) {
            slot = keptCount++;
        } else {
            long smallest = Long.MAX_VALUE;
            for (int i = 0; i < KEPT; i++) {
                if (now - keptAt[i] >= windowNanos) {
                    slot = i;
                    break;
                }
                if (keptNanos[i] < smallest) {
                    smallest = keptNanos[i];
                    slot = i;
                }
            }
            if (now - keptAt[slot] < windowNanos && keptNanos[slot] >= v) {
                return;
            }
        }
        keptNanos[slot] = v;
        keptAt[slot] = now;
        keptWall[slot] = wall;
    }

    @Override
    void sample(long now) {
        long max;
        long count;
        long[] q;
        List<PauseSnapshot.Pause> longest = new ArrayList<>();
        synchronized (lock) {
            max = histogram.max(now);
            count = histogram.count(now);
            q = histogram.quantiles(now, 0.5, 0.99, 0.999);
            for (int i = 0; i < keptCount; i++) {
                if (now - keptAt[i] < windowNanos) {
                    longest.add(new PauseSnapshot.Pause(Duration.ofNanos(keptNanos[i]), Instant.ofEpochMilli(keptWall[i])));
                }
            }
        }
        longest.sort(Comparator.comparing(PauseSnapshot.Pause::duration).reversed());
        List<PauseSnapshot.Pause> top = longest.size() > LONGEST ? longest.subList(0, LONGEST) : longest;
        publish(new PauseSnapshot(Duration.ofNanos(max), Duration.ofNanos(q[0]), Duration.ofNanos(q[1]),
                Duration.ofNanos(q[2]), count, top, window));
    }

    @Override
    Health assess(PauseSnapshot s) {
        boolean warn = s.max().compareTo(warnAbove) >= 0;
        Health.Builder b = Health.builder(warn ? Status.DEGRADED : Status.UP)
                .detail("maxMs", s.max().toMillis())
                .detail("p99Ms", s.p99().toMillis())
                .detail("p999Ms", s.p999().toMillis())
                .detail("samples", s.samples())
                .detail("warnAboveMs", warnAbove.toMillis());
        if (warn) {
            b.message("JVM paused " + s.max().toMillis() + " ms within the last " + window.toSeconds() + " s");
        }
        return b.build();
    }

    @Override
    String settings() {
        return "resolution=" + resolution;
    }

    /** Builds a {@link PauseDetector}. Not thread-safe. */
    public static final class Builder extends AbstractMonitor.Builder<Builder> {
        private Duration resolution = DEFAULT_RESOLUTION;
        private Duration window = DEFAULT_WINDOW;
        private Duration notableAt = DEFAULT_NOTABLE_AT;
        private Duration warnAbove = DEFAULT_WARN_ABOVE;

        private Builder(String name) {
            super(name, DEFAULT_INTERVAL, Duration.ofMillis(1));
        }

        /**
         * @param resolution the measuring thread's sleep, 1 ms to 1 s; default 10 ms. Shorter
         *     catches shorter pauses and costs more wake-ups.
         * @return this builder
         * @throws NullPointerException if {@code resolution} is null
         * @throws IllegalArgumentException if out of range
         */
        public Builder resolution(Duration resolution) {
            requireAtLeast(name, "resolution", resolution, Duration.ofMillis(1));
            if (resolution.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("monitor '" + name + "': resolution must be at most 1000 ms, was "
                        + resolution);
            }
            this.resolution = resolution;
            return this;
        }

        /**
         * @param window time covered by the figures, at least 1 s; default 60 s
         * @return this builder
         * @throws NullPointerException if {@code window} is null
         * @throws IllegalArgumentException if it is under 1 s
         */
        public Builder window(Duration window) {
            this.window = requireAtLeast(name, "window", window, Duration.ofSeconds(1));
            return this;
        }

        /**
         * @param notableAt least pause listed in {@link PauseSnapshot#longest()}, at least 1 ms;
         *     default 20 ms
         * @return this builder
         * @throws NullPointerException if {@code notableAt} is null
         * @throws IllegalArgumentException if it is under 1 ms
         */
        public Builder notableAt(Duration notableAt) {
            this.notableAt = requireAtLeast(name, "notableAt", notableAt, Duration.ofMillis(1));
            return this;
        }

        /**
         * @param warnAbove longest pause within the window at or above which the check is
         *     DEGRADED, at least 1 ms; default 1 s
         * @return this builder
         * @throws NullPointerException if {@code warnAbove} is null
         * @throws IllegalArgumentException if it is under 1 ms
         */
        public Builder warnAbove(Duration warnAbove) {
            this.warnAbove = requireAtLeast(name, "warnAbove", warnAbove, Duration.ofMillis(1));
            return this;
        }

        /** @return the detector, not started (no thread until {@code start}) */
        public PauseDetector build() {
            return new PauseDetector(this);
        }
    }
}
