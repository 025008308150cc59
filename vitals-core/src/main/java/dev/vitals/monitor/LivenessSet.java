package dev.vitals.monitor;

import dev.vitals.Availability;
import dev.vitals.Check;
import dev.vitals.Clock;
import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The default liveness set (DESIGN.md P2: only what a restart can cure), registered and started
 * in one call each. It includes exactly:
 * <ol>
 *   <li>a {@link DeadlockMonitor} named {@code deadlock} (monitor and ownable-synchronizer
 *       deadlocks, scanned every 10 s unless {@link Builder#deadlockInterval(Duration)} says
 *       otherwise);</li>
 *   <li>the check of every {@link ProgressWatchdog} the application adds (a stalled executor);</li>
 *   <li>the check of every {@link LagMonitor} the application adds (a heartbeat pending longer
 *       than its stall bound: a stuck event loop or scheduler);</li>
 *   <li>the application-marked broken state: {@link Availability#markBroken(String)}, which every
 *       registry already shows in liveness as the pseudo-check
 *       {@value Availability#CHECK_NAME}; this set adds nothing for it and relies on it.</li>
 * </ol>
 * Nothing else: no dependency, saturation, memory, pause or listener check (add a
 * {@link ListenerMonitor} or a {@link MemoryMonitor} with {@code onBreach(DOWN)} yourself if you
 * want them). All its checks are registered in {@code liveness}, scheduled, critical, with the
 * defaults of {@link Monitor#check()}.
 *
 * <pre>{@code
 * LivenessSet liveness = LivenessSet.of(ProgressWatchdog.builder("workers", ProgressSource.of(pool)).build());
 * HealthRegistry registry = liveness.registerAll(HealthRegistry.builder()).build();
 * liveness.start(registry);
 * registry.start();
 * ...
 * liveness.close();   // or registry.close(): the monitors stop when its scheduler does
 * registry.close();
 * }</pre>
 *
 * <p>Thread-safe once built.
 */
public final class LivenessSet implements AutoCloseable {
    private final List<Monitor> monitors;
    private final List<Check> checks;

    private LivenessSet(List<Monitor> monitors) {
        this.monitors = List.copyOf(monitors);
        List<Check> cs = new ArrayList<>();
        for (Monitor m : this.monitors) {
            cs.add(m.check().groups(Groups.LIVENESS).critical(true).build());
        }
        this.checks = List.copyOf(cs);
    }

    /**
     * The default set: deadlock detection plus the given watchdogs.
     *
     * @param watchdogs the application's progress watchdogs, not started
     * @return the set
     * @throws NullPointerException if a watchdog is null
     * @throws IllegalArgumentException if two monitors share a name
     */
    public static LivenessSet of(ProgressWatchdog... watchdogs) {
        Builder b = builder();
        for (ProgressWatchdog w : watchdogs) {
            b.watchdog(w);
        }
        return b.build();
    }

    /** @return a builder holding just the deadlock monitor */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the monitors, deadlock first, then watchdogs and lag monitors in the order added */
    public List<Monitor> monitors() {
        return monitors;
    }

    /** @return one liveness registration per monitor, in the order of {@link #monitors()} */
    public List<Check> checks() {
        return checks;
    }

    /**
     * Registers every check of the set.
     *
     * @param registry the registry builder
     * @return {@code registry}, for chaining
     * @throws NullPointerException if {@code registry} is null
     * @throws IllegalArgumentException if the registry already has a check of the same name
     */
    public HealthRegistry.Builder registerAll(HealthRegistry.Builder registry) {
        Objects.requireNonNull(registry, "registry");
        for (Check c : checks) {
            registry.register(c);
        }
        return registry;
    }

    /**
     * Starts every monitor with the registry's clock and scheduler.
     *
     * @param registry the registry
     * @throws NullPointerException if {@code registry} is null
     * @throws IllegalStateException if a monitor was started or closed before
     */
    public void start(HealthRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        start(registry.clock(), registry.scheduler());
    }

    /**
     * Starts every monitor.
     *
     * @param clock the time source
     * @param scheduler where the monitors sample
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if a monitor was started or closed before
     */
    public void start(Clock clock, Scheduler scheduler) {
        for (Monitor m : monitors) {
            m.start(clock, scheduler);
        }
    }

    /** Closes every monitor. Idempotent. */
    @Override
    public void close() {
        for (Monitor m : monitors) {
            m.close();
        }
    }

    @Override
    public String toString() {
        List<String> names = new ArrayList<>();
        for (Monitor m : monitors) {
            names.add(m.name());
        }
        return "LivenessSet" + names;
    }

    /** Builds a {@link LivenessSet}. Not thread-safe. */
    public static final class Builder {
        private Duration deadlockInterval = DeadlockMonitor.DEFAULT_INTERVAL;
        private final List<Monitor> added = new ArrayList<>();

        private Builder() {
        }

        /**
         * @param interval time between deadlock scans, at least 100 ms; default 10 s
         * @return this builder
         * @throws NullPointerException if {@code interval} is null
         * @throws IllegalArgumentException if it is under 100 ms
         */
        public Builder deadlockInterval(Duration interval) {
            this.deadlockInterval = AbstractMonitor.requireAtLeast("deadlock", "interval", interval, Duration.ofMillis(100));
            return this;
        }

        /**
         * @param watchdog a progress watchdog, not started
         * @return this builder
         * @throws NullPointerException if {@code watchdog} is null
         */
        public Builder watchdog(ProgressWatchdog watchdog) {
            added.add(Objects.requireNonNull(watchdog, "watchdog"));
            return this;
        }

        /**
         * @param lag a lag monitor of a scheduler or event loop, not started; its liveness check
         *     fails only when a heartbeat is pending longer than its {@code stallAfter}
         * @return this builder
         * @throws NullPointerException if {@code lag} is null
         */
        public Builder lag(LagMonitor lag) {
            added.add(Objects.requireNonNull(lag, "lag"));
            return this;
        }

        /**
         * @return the set
         * @throws IllegalArgumentException if two monitors share a name
         */
        public LivenessSet build() {
            List<Monitor> all = new ArrayList<>();
            all.add(DeadlockMonitor.builder().interval(deadlockInterval).build());
            all.addAll(added);
            Set<String> names = new HashSet<>();
            for (Monitor m : all) {
                if (!names.add(m.name())) {
                    throw new IllegalArgumentException("liveness set: two monitors are named '" + m.name() + "'");
                }
            }
            return new LivenessSet(all);
        }
    }
}
