package dev.vitals.micrometer;

import dev.vitals.Check;
import dev.vitals.Health;
import dev.vitals.HealthListener;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for a Vitals {@link HealthRegistry} (DESIGN.md P7). One object plays two
 * parts: it is the registry's {@link HealthListener} (it sees every execution of every check)
 * and a Micrometer {@link MeterBinder} (it creates the meters in each bound meter registry).
 *
 * <pre>{@code
 * VitalsMetrics metrics = VitalsMetrics.create();
 * HealthRegistry health = HealthRegistry.builder()
 *         .register(...)
 *         .listener(metrics)          // per-execution meters
 *         .build();
 * metrics.monitor(health)             // status gauges for its checks and groups
 *        .bindTo(meterRegistry);
 * }</pre>
 *
 * <p>Meters (names in Micrometer's dotted lowercase style; a Prometheus registry renders
 * {@code vitals.check.duration} as {@code vitals_check_duration_seconds_*}):
 *
 * <table>
 * <caption>meters</caption>
 * <tr><th>name</th><th>type</th><th>tags</th><th>unit</th><th>meaning</th></tr>
 * <tr><td>{@value #CHECK_DURATION}</td><td>timer</td><td>check</td><td>seconds</td>
 *     <td>duration of each execution that returned within its timeout</td></tr>
 * <tr><td>{@value #CHECK_FAILURES}</td><td>counter</td><td>check</td><td>—</td>
 *     <td>executions whose raw result was DOWN or UNKNOWN (thrown, null, timed out…), before thresholds</td></tr>
 * <tr><td>{@value #CHECK_TIMEOUTS}</td><td>counter</td><td>check</td><td>—</td>
 *     <td>results reported as timed out (a hung execution is reported again on each evaluation that
 *     finds it still running, and counted each time)</td></tr>
 * <tr><td>{@value #CHECK_STATUS}</td><td>gauge</td><td>check</td><td>—</td>
 *     <td>the check's current status as reported (thresholds and staleness applied):
 *     0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN (higher is worse)</td></tr>
 * <tr><td>{@value #GROUP_STATUS}</td><td>gauge</td><td>group</td><td>—</td>
 *     <td>the group's aggregated status, same encoding, availability state included</td></tr>
 * </table>
 *
 * <p>Extra common tags given to {@link #create(Iterable)} are added to every meter. Status
 * gauges read {@link HealthRegistry#report(String)} (never blocks, never runs a check); after
 * the registry is closed they read {@code NaN}.
 *
 * <p>Thread-safe. {@link #onExecution} is called on Vitals' threads and costs a map lookup
 * and the meter updates per bound meter registry.
 */
public final class VitalsMetrics implements MeterBinder, HealthListener {
    /** Timer: execution duration of each check. */
    public static final String CHECK_DURATION = "vitals.check.duration";
    /** Counter: executions that failed (DOWN or UNKNOWN). */
    public static final String CHECK_FAILURES = "vitals.check.failures";
    /** Counter: results reported as timed out. */
    public static final String CHECK_TIMEOUTS = "vitals.check.timeouts";
    /** Gauge: a check's current status, 0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN. */
    public static final String CHECK_STATUS = "vitals.check.status";
    /** Gauge: a group's current status, 0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN. */
    public static final String GROUP_STATUS = "vitals.group.status";

    static final String TAG_CHECK = "check";
    static final String TAG_GROUP = "group";

    private final Tags tags;
    private final List<Bound> bound = new CopyOnWriteArrayList<>();
    private volatile HealthRegistry registry;

    private VitalsMetrics(Tags tags) {
        this.tags = tags;
    }

    /** @return metrics with no extra tags */
    public static VitalsMetrics create() {
        return new VitalsMetrics(Tags.empty());
    }

    /**
     * @param tags common tags added to every meter (for example {@code service}); must not use
     *     the keys {@code check} or {@code group}
     * @return metrics with those tags
     * @throws IllegalArgumentException if a tag uses a reserved key
     */
    public static VitalsMetrics create(Iterable<Tag> tags) {
        Tags t = Tags.of(Objects.requireNonNull(tags, "tags"));
        for (Tag tag : t) {
            if (TAG_CHECK.equals(tag.getKey()) || TAG_GROUP.equals(tag.getKey())) {
                throw new IllegalArgumentException("tag key '" + tag.getKey() + "' is reserved by VitalsMetrics");
            }
        }
        return new VitalsMetrics(t);
    }

    /**
     * Names the registry whose checks and groups get status gauges, and whose checks get their
     * timer and counters registered up front (at 0) when bound. Call it before
     * {@link #bindTo(MeterRegistry)}; registries bound earlier get the gauges too.
     *
     * @param registry the health registry this object listens to
     * @return this
     * @throws IllegalStateException if a different registry was already named
     */
    public synchronized VitalsMetrics monitor(HealthRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        if (this.registry != null && this.registry != registry) {
            throw new IllegalStateException("VitalsMetrics already monitors another health registry");
        }
        if (this.registry == null) {
            this.registry = registry;
            for (Bound b : bound) {
                b.registerRegistryMeters(registry);
            }
        }
        return this;
    }

    /** @return the monitored health registry, if {@link #monitor(HealthRegistry)} was called */
    public Optional<HealthRegistry> registry() {
        return Optional.ofNullable(registry);
    }

    /**
     * Registers the meters in {@code meterRegistry}. Binding the same meter registry twice has
     * no further effect.
     *
     * @param meterRegistry where the meters go
     */
    @Override
    public synchronized void bindTo(MeterRegistry meterRegistry) {
        Objects.requireNonNull(meterRegistry, "meterRegistry");
        for (Bound b : bound) {
            if (b.meters == meterRegistry) {
                return;
            }
        }
        Bound b = new Bound(meterRegistry);
        HealthRegistry r = registry;
        if (r != null) {
            b.registerRegistryMeters(r);
        }
        bound.add(b);
    }

    @Override
    public void onExecution(Check check, Health health, boolean timedOut) {
        for (Bound b : bound) {
            CheckMeters m = b.checkMeters(check.name());
            if (!timedOut) {
                m.duration.record(health.duration().toNanos(), TimeUnit.NANOSECONDS);
            }
            if (!health.status().isHealthy()) {
                m.failures.increment();
            }
            if (timedOut) {
                m.timeouts.increment();
            }
        }
    }

    /**
     * @param status a status
     * @return its gauge value: 0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN
     */
    public static double statusValue(Status status) {
        return Objects.requireNonNull(status, "status").ordinal();
    }

    private static double checkStatus(HealthRegistry r, String group, String check) {
        try {
            Health h = r.report(group).checks().get(check);
            return h == null ? Double.NaN : statusValue(h.status());
        } catch (IllegalStateException e) {
            return Double.NaN; // closed
        }
    }

    private static double groupStatus(HealthRegistry r, String group) {
        try {
            Report report = r.report(group);
            return statusValue(report.status());
        } catch (IllegalStateException e) {
            return Double.NaN; // closed
        }
    }

    private static final class CheckMeters {
        final Timer duration;
        final Counter failures;
        final Counter timeouts;

        CheckMeters(MeterRegistry m, Tags tags) {
            duration = Timer.builder(CHECK_DURATION).tags(tags)
                    .description("Duration of each check execution that returned within its timeout")
                    .register(m);
            failures = Counter.builder(CHECK_FAILURES).tags(tags)
                    .description("Check executions whose result was DOWN or UNKNOWN, timeouts included")
                    .register(m);
            timeouts = Counter.builder(CHECK_TIMEOUTS).tags(tags)
                    .description("Check results reported as timed out")
                    .register(m);
        }
    }

    private final class Bound {
        final MeterRegistry meters;
        final Map<String, CheckMeters> checks = new ConcurrentHashMap<>();

        Bound(MeterRegistry meters) {
            this.meters = meters;
        }

        CheckMeters checkMeters(String check) {
            CheckMeters m = checks.get(check);
            return m != null ? m : checks.computeIfAbsent(check, c -> new CheckMeters(meters, tags.and(TAG_CHECK, c)));
        }

        void registerRegistryMeters(HealthRegistry r) {
            for (Check c : r.checks()) {
                checkMeters(c.name());
                String group = c.groups().iterator().next();
                gauge(CHECK_STATUS, tags.and(TAG_CHECK, c.name()), r, reg -> checkStatus(reg, group, c.name()),
                        "Current status of the check: 0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN");
            }
            List<String> groups = new ArrayList<>(r.groups());
            for (String g : groups) {
                gauge(GROUP_STATUS, tags.and(TAG_GROUP, g), r, reg -> groupStatus(reg, g),
                        "Current status of the group: 0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN");
            }
        }

        private void gauge(String name, Tags t, HealthRegistry r, ToDoubleFunction<HealthRegistry> f, String description) {
            Gauge.builder(name, r, f).tags(t).description(description).register(meters);
        }
    }
}
