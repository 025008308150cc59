package dev.vitals.monitor;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

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
 * <p>Unknown is not healthy, and not a reason to restart either (issue 30): when the JVM refuses
 * the scan (restricted management access: a {@link SecurityException} or
 * {@link UnsupportedOperationException}, or any other exception from the MXBean), the check is
 * {@link Status#DEGRADED} "deadlock detection unavailable: &lt;reason&gt;" with the detail
 * {@code deadlocks=unknown} — liveness still passes (DESIGN.md P2), the degradation is visible in
 * every detailed report — and {@link #unavailableScans()} counts the refused scans (Micrometer:
 * {@code vitals.deadlock.unavailable}). The refusal is logged once at WARNING, without a stack
 * trace; a later successful scan is logged once at INFO.
 *
 * <p>Thread-safe. Default interval 10 s.
 */
public final class DeadlockMonitor extends AbstractMonitor<DeadlockSnapshot> {
    /** Default time between scans: 10 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    private final ThreadMXBean threads;
    private final AtomicLong unavailableScans = new AtomicLong();
    private volatile boolean refused; // written by sample() only

    private DeadlockMonitor(Builder b) {
        super(b);
        this.threads = b.threads != null ? b.threads : ManagementFactory.getThreadMXBean();
    }

    /** @return scans the JVM refused so far (restricted management access); never decreases */
    public long unavailableScans() {
        return unavailableScans.get();
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
        return new Builder(name);
    }

    @Override
    String defaultGroup() {
        return Groups.LIVENESS;
    }

    @Override
    void sample(long now) {
        DeadlockSnapshot s;
        try {
            s = scan(now);
        } catch (RuntimeException e) { // SecurityException, UnsupportedOperationException, ...
            unavailableScans.incrementAndGet();
            s = DeadlockSnapshot.unavailable(e.toString(), Duration.ofNanos(Math.max(0, clock().monotonicTime() - now)));
            if (!refused) {
                refused = true;
                LOG.log(System.Logger.Level.WARNING, "monitor " + name() + ": deadlock detection unavailable, the check"
                        + " reads DEGRADED until a scan succeeds (logged once): " + e);
            }
            publish(s);
            return;
        }
        if (refused) {
            refused = false;
            LOG.log(System.Logger.Level.INFO, "monitor " + name() + ": deadlock detection available again");
        }
        publish(s);
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

    @Override
    Health assess(DeadlockSnapshot s) {
        if (s.unavailable().isPresent()) {
            return Health.builder(Status.DEGRADED)
                    .message("deadlock detection unavailable: " + s.unavailable().get())
                    .detail("deadlocks", "unknown")
                    .build();
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
    String settings() {
        return "interval=" + interval();
    }

    /** Builds a {@link DeadlockMonitor}. Not thread-safe. */
    public static final class Builder extends AbstractMonitor.Builder<Builder> {
        private ThreadMXBean threads;

        private Builder(String name) {
            super(name, DEFAULT_INTERVAL, Duration.ofMillis(100));
        }

        /** The MXBean to scan; default the platform's. For tests that restrict management access. */
        Builder threads(ThreadMXBean threads) {
            this.threads = Objects.requireNonNull(threads, "threads");
            return this;
        }

        /** @return the monitor, not started */
        public DeadlockMonitor build() {
            return new DeadlockMonitor(this);
        }
    }
}
