package dev.vitals.monitor;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.Status;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Detects deadlocks among the JVM's threads, both on object monitors ({@code synchronized}) and
 * on ownable synchronizers ({@link java.util.concurrent.locks.ReentrantLock},
 * {@link java.util.concurrent.locks.ReentrantReadWriteLock}), with
 * {@link ThreadMXBean#findDeadlockedThreads()} (falling back to
 * {@link ThreadMXBean#findMonitorDeadlockedThreads()} where synchronizer usage is not supported),
 * then the names with {@link ThreadMXBean#getThreadInfo(long[])} (no stack traces).
 *
 * <p>The scan runs on a schedule (default every 10 s) on Vitals' scheduler, never per probe: it
 * is a VM operation whose cost grows with the number of live threads (see the figures in
 * docs/core.md, "Monitors"). A deadlock never resolves itself, so a 10 s delay costs nothing.
 *
 * <p>The check is {@link Status#DOWN} "deadlock: N threads" while a deadlock exists, with the
 * thread names (names only, sorted, comma-separated) in the detail {@code threads}, which a probe
 * body shows only when the details policy allows; else {@link Status#UP}. {@link #check()}
 * registers in {@code liveness}: a restart is the only cure.
 *
 * <p>Thread-safe. Default interval 10 s.
 */
public final class DeadlockMonitor extends AbstractMonitor {
    /** Default time between scans: 10 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    private final ThreadMXBean threads;
    private final HealthCheck healthCheck = this::health;
    private volatile DeadlockSnapshot latest;

    private DeadlockMonitor(Builder b) {
        super(b.name, b.interval);
        this.threads = ManagementFactory.getThreadMXBean();
    }

    /** @return a builder named {@code deadlock} with the defaults */
    public static Builder builder() {
        return builder("deadlock");
    }

    /**
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @return a builder with the defaults
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder builder(String name) {
        return new Builder(requireName(name));
    }

    /** @return the latest scan; empty before the first one */
    public Optional<DeadlockSnapshot> snapshot() {
        return Optional.ofNullable(latest);
    }

    @Override
    public HealthCheck healthCheck() {
        return healthCheck;
    }

    @Override
    String defaultGroup() {
        return Groups.LIVENESS;
    }

    @Override
    void sample(long now) {
        latest = scan(now);
    }

    private DeadlockSnapshot scan(long t0) {
        long[] ids = threads.isSynchronizerUsageSupported()
                ? threads.findDeadlockedThreads()
                : threads.findMonitorDeadlockedThreads();
        List<String> names;
        if (ids == null || ids.length == 0) {
            names = List.of();
        } else {
            names = new ArrayList<>(ids.length);
            for (ThreadInfo info : threads.getThreadInfo(ids)) {
                if (info != null) { // null: the thread has died since
                    names.add(info.getThreadName());
                }
            }
            Collections.sort(names);
        }
        return new DeadlockSnapshot(names, Duration.ofNanos(Math.max(0, clock().monotonicTime() - t0)));
    }

    private Health health() {
        Health h = lifecycleHealth();
        if (h != null) {
            return h;
        }
        DeadlockSnapshot s = latest;
        if (s == null) {
            return Health.unknown("no scan yet");
        }
        if (!s.deadlocked()) {
            return Health.up();
        }
        return Health.builder(Status.DOWN)
                .message("deadlock: " + s.threadNames().size() + " threads")
                .detail("threads", String.join(", ", s.threadNames()))
                .build();
    }

    @Override
    public String toString() {
        return "DeadlockMonitor{" + name() + ", interval=" + interval() + ", latest=" + latest + '}';
    }

    /** Builds a {@link DeadlockMonitor}. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private Duration interval = DEFAULT_INTERVAL;

        private Builder(String name) {
            this.name = name;
        }

        /**
         * @param interval time between scans, at least 100 ms; default 10 s
         * @return this builder
         * @throws NullPointerException if {@code interval} is null
         * @throws IllegalArgumentException if it is under 100 ms
         */
        public Builder interval(Duration interval) {
            this.interval = requireAtLeast(name, "interval", interval, Duration.ofMillis(100));
            return this;
        }

        /** @return the monitor, not started */
        public DeadlockMonitor build() {
            return new DeadlockMonitor(this);
        }
    }
}
