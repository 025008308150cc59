package dev.vitals.micrometer;

import dev.vitals.Check;
import dev.vitals.Health;
import dev.vitals.HealthListener;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.Status;
import dev.vitals.monitor.DeadlockMonitor;
import dev.vitals.monitor.LagMonitor;
import dev.vitals.monitor.ListenerMonitor;
import dev.vitals.monitor.ListenerSnapshot;
import dev.vitals.monitor.MemoryMonitor;
import dev.vitals.monitor.MemorySnapshot;
import dev.vitals.monitor.Monitor;
import dev.vitals.monitor.PauseDetector;
import dev.vitals.monitor.ProgressWatchdog;
import dev.vitals.monitor.SaturationMonitor;
import dev.vitals.monitor.SaturationSnapshot;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
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
 * <p>Meters (names in Micrometer's dotted lowercase style). Every meter has a description and a
 * base unit (the unit of its value, or what it counts), as Micrometer's own binders do; a
 * Prometheus registry appends the unit unless the name already ends with it, e.g.
 * {@code vitals.check.duration} becomes {@code vitals_check_duration_seconds_*},
 * {@code vitals.pool.queued} (tasks) {@code vitals_pool_queued_tasks} and
 * {@code vitals.check.failures} (failures) stays {@code vitals_check_failures_total}:
 *
 * <table>
 * <caption>meters</caption>
 * <tr><th>name</th><th>type</th><th>tags</th><th>base unit</th><th>meaning</th></tr>
 * <tr><td>{@value #CHECK_DURATION}</td><td>timer</td><td>check</td><td>seconds</td>
 *     <td>duration of each execution that returned within its timeout</td></tr>
 * <tr><td>{@value #CHECK_FAILURES}</td><td>counter</td><td>check</td><td>failures</td>
 *     <td>executions whose raw result was DOWN or UNKNOWN (thrown, null, timed out…), before thresholds</td></tr>
 * <tr><td>{@value #CHECK_TIMEOUTS}</td><td>counter</td><td>check</td><td>timeouts</td>
 *     <td>results reported as timed out (a hung execution is reported again on each evaluation that
 *     finds it still running, and counted each time)</td></tr>
 * <tr><td>{@value #CHECK_STATUS}</td><td>gauge</td><td>check</td><td>status</td>
 *     <td>the check's current status as reported (thresholds and staleness applied):
 *     0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN (higher is worse)</td></tr>
 * <tr><td>{@value #GROUP_STATUS}</td><td>gauge</td><td>group</td><td>status</td>
 *     <td>the group's aggregated status, same encoding, availability state included</td></tr>
 * <tr><td>{@value #AVAILABILITY_DRAINING}</td><td>gauge</td><td>(none)</td><td>registries</td>
 *     <td>1 while the registry drains for shutdown, else 0</td></tr>
 * <tr><td>{@value #POOL_SATURATION}; {@value #POOL_BUSY}, {@value #POOL_CAPACITY}; {@value #POOL_QUEUED}</td>
 *     <td>gauges</td><td>pool</td><td>ratio; units (threads, permits); tasks</td>
 *     <td>a {@link SaturationMonitor}'s latest sample</td></tr>
 * <tr><td>{@value #POOL_COMPLETED}; {@value #POOL_STALLED}; {@value #POOL_WITHOUT_PROGRESS}</td>
 *     <td>function counter; gauges</td><td>pool</td><td>tasks; pools (1 while stalled, else 0); seconds</td>
 *     <td>a {@link ProgressWatchdog}'s latest sample</td></tr>
 * <tr><td>{@value #LAG_CURRENT}, {@value #LAG_MAX}, {@value #LAG_P99}</td><td>gauges</td><td>pool</td>
 *     <td>seconds</td><td>a {@link LagMonitor}'s latest snapshot (scheduler or event loop)</td></tr>
 * <tr><td>{@value #PAUSE_MAX}, {@value #PAUSE_P99}</td><td>gauges</td><td>monitor</td><td>seconds</td>
 *     <td>a {@link PauseDetector}'s latest snapshot</td></tr>
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

    /**
     * Gauge: 1 while the registry drains for shutdown ({@link dev.vitals.Availability#isDraining()}),
     * else 0; summed, the number of draining registries. Prometheus:
     * {@code vitals_availability_draining_registries}.
     */
    public static final String AVAILABILITY_DRAINING = "vitals.availability.draining";

    /** Gauge: busy ÷ capacity of a monitored pool, 0.0–1.0. */
    public static final String POOL_SATURATION = "vitals.pool.saturation";
    /** Gauge: busy units (threads, permits) of a monitored pool. */
    public static final String POOL_BUSY = "vitals.pool.busy";
    /** Gauge: capacity of a monitored pool. */
    public static final String POOL_CAPACITY = "vitals.pool.capacity";
    /** Gauge: work waiting for a unit of a monitored pool. */
    public static final String POOL_QUEUED = "vitals.pool.queued";
    /** Function counter: tasks a watched pool has completed. */
    public static final String POOL_COMPLETED = "vitals.pool.completed";
    /** Gauge: 1 while a watched pool is stalled (work waiting, nothing completed for its stall bound), else 0. */
    public static final String POOL_STALLED = "vitals.pool.stalled";
    /** Gauge: seconds since a watched pool last completed a task while it had work. */
    public static final String POOL_WITHOUT_PROGRESS = "vitals.pool.without.progress";
    /** Gauge: lag of the latest heartbeat of a scheduler or event loop, seconds. */
    public static final String LAG_CURRENT = "vitals.lag.current";
    /** Gauge: largest lag in the monitor's window, seconds. */
    public static final String LAG_MAX = "vitals.lag.max";
    /** Gauge: 99th percentile of lag in the monitor's window, seconds. */
    public static final String LAG_P99 = "vitals.lag.p99";
    /** Gauge: longest JVM pause in the detector's window, seconds. */
    public static final String PAUSE_MAX = "vitals.pause.max";
    /** Gauge: 99th percentile of JVM pauses in the detector's window, seconds. */
    public static final String PAUSE_P99 = "vitals.pause.p99";
    /** Gauge: heap in use after the latest GC, bytes (memory monitors; tag {@code monitor}). */
    public static final String MEMORY_USED_AFTER_GC = "vitals.memory.used.after.gc";
    /** Gauge: heap in use after the latest GC ÷ maximum heap, 0.0–1.0 (memory monitors). */
    public static final String MEMORY_RATIO = "vitals.memory.ratio";
    /** Gauge: threads found deadlocked by the latest scan (deadlock monitors; tag {@code monitor}). */
    public static final String DEADLOCKED_THREADS = "vitals.deadlock.threads";
    /** Counter: deadlock scans the JVM refused (restricted management access; tag {@code monitor}). */
    public static final String DEADLOCK_UNAVAILABLE = "vitals.deadlock.unavailable";
    /** Gauge: 1 when the latest connect to the listener was accepted, else 0 (listener monitors). */
    public static final String LISTENER_ACCEPTED = "vitals.listener.accepted";
    /** Gauge: duration of the latest connect attempt, seconds (listener monitors). */
    public static final String LISTENER_CONNECT_TIME = "vitals.listener.connect.time";
    /**
     * Gauge: a monitor's own check status, as {@value #CHECK_STATUS} (every monitor; tags
     * {@code monitor} = its name and {@code kind}, such as {@code saturation} or
     * {@code progresswatchdog}, since monitors of two kinds may share a name).
     */
    public static final String MONITOR_STATUS = "vitals.monitor.status";

    // Base units: Micrometer's BaseUnits where one fits, else the thing counted (a Prometheus
    // registry appends the unit unless the name already ends with it).
    static final String UNIT_SECONDS = "seconds";
    static final String UNIT_RATIO = "ratio";
    static final String UNIT_UNITS = "units";
    static final String UNIT_POOLS = "pools";
    static final String UNIT_FAILURES = "failures";
    static final String UNIT_TIMEOUTS = "timeouts";
    static final String UNIT_STATUS = "status";
    static final String UNIT_REGISTRIES = "registries";

    static final String TAG_CHECK = "check";
    static final String TAG_POOL = "pool";
    static final String TAG_MONITOR = "monitor";
    static final String TAG_KIND = "kind";
    static final String TAG_GROUP = "group";

    private final Tags tags;
    private final List<Bound> bound = new CopyOnWriteArrayList<>();
    private final List<Consumer<MeterRegistry>> monitors = new CopyOnWriteArrayList<>();
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
     *     the keys {@code check}, {@code group}, {@code pool} or {@code monitor}
     * @return metrics with those tags
     * @throws IllegalArgumentException if a tag uses a reserved key
     */
    public static VitalsMetrics create(Iterable<Tag> tags) {
        Tags t = Tags.of(Objects.requireNonNull(tags, "tags"));
        for (Tag tag : t) {
            if (TAG_CHECK.equals(tag.getKey()) || TAG_GROUP.equals(tag.getKey()) || TAG_POOL.equals(tag.getKey())
                    || TAG_MONITOR.equals(tag.getKey()) || TAG_KIND.equals(tag.getKey())) {
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
        for (Consumer<MeterRegistry> m : monitors) {
            m.accept(meterRegistry);
        }
        bound.add(b);
    }

    /**
     * Adds the figures of any monitor, whatever its kind: pool gauges for a
     * {@link SaturationMonitor}, progress meters for a {@link ProgressWatchdog}, lag gauges for a
     * {@link LagMonitor}, pause gauges for a {@link PauseDetector}, {@value #MEMORY_USED_AFTER_GC}
     * and {@value #MEMORY_RATIO} for a {@link MemoryMonitor}, {@value #DEADLOCKED_THREADS} for a
     * {@link DeadlockMonitor}, {@value #LISTENER_ACCEPTED} and {@value #LISTENER_CONNECT_TIME} for a
     * {@link ListenerMonitor}; and for every monitor (other kinds included) {@value #MONITOR_STATUS},
     * its check's status read from the latest sample (never samples, never blocks).
     *
     * @param monitor the monitor
     * @return this
     */
    public VitalsMetrics monitor(Monitor monitor) {
        Objects.requireNonNull(monitor, "monitor");
        if (monitor instanceof SaturationMonitor) {
            saturation((SaturationMonitor) monitor);
        } else if (monitor instanceof ProgressWatchdog) {
            progress((ProgressWatchdog) monitor);
        } else if (monitor instanceof LagMonitor) {
            lag((LagMonitor) monitor);
        } else if (monitor instanceof PauseDetector) {
            pause((PauseDetector) monitor);
        } else if (monitor instanceof MemoryMonitor) {
            MemoryMonitor mm = (MemoryMonitor) monitor;
            Tags t = tags.and(TAG_MONITOR, mm.name());
            addMonitor(m -> {
                snapshotGauge(m, MEMORY_USED_AFTER_GC, t, mm, x -> x.snapshot().map(s -> (double) s.usedAfterGc()),
                        "Heap in use after the latest garbage collection", "bytes");
                snapshotGauge(m, MEMORY_RATIO, t, mm, x -> x.snapshot().map(MemorySnapshot::ratio),
                        "Heap in use after the latest garbage collection / maximum heap, 0.0-1.0", "ratio");
            });
        } else if (monitor instanceof DeadlockMonitor) {
            DeadlockMonitor dm = (DeadlockMonitor) monitor;
            Tags t = tags.and(TAG_MONITOR, dm.name());
            addMonitor(m -> {
                snapshotGauge(m, DEADLOCKED_THREADS, t, dm, x -> x.snapshot().map(s -> (double) s.threadNames().size()),
                        "Threads found deadlocked by the latest scan", "threads");
                FunctionCounter.builder(DEADLOCK_UNAVAILABLE, dm, DeadlockMonitor::unavailableScans).tags(t)
                        .description("Deadlock scans the JVM refused (restricted management access)").baseUnit("scans")
                        .register(m);
            });
        } else if (monitor instanceof ListenerMonitor) {
            ListenerMonitor lm = (ListenerMonitor) monitor;
            Tags t = tags.and(TAG_MONITOR, lm.name());
            addMonitor(m -> {
                snapshotGauge(m, LISTENER_ACCEPTED, t, lm,
                        x -> x.snapshot().map(s -> s.result() == ListenerSnapshot.Result.ACCEPTED ? 1.0 : 0.0),
                        "1 when the latest connect to the listener was accepted, else 0", "status");
                snapshotGauge(m, LISTENER_CONNECT_TIME, t, lm,
                        x -> x.snapshot().map(s -> s.connectTime() == null ? Double.NaN : seconds(s.connectTime())),
                        "Duration of the latest connect attempt to the listener", "seconds");
            });
        }
        Tags t = tags.and(TAG_MONITOR, monitor.name()).and(TAG_KIND, kind(monitor));
        return addMonitor(m -> Gauge.builder(MONITOR_STATUS, monitor, VitalsMetrics::monitorStatus).tags(t)
                .description("Status of the monitor's check from its latest sample: 0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN")
                .baseUnit("status").strongReference(true).register(m));
    }

    /** @return the monitor's kind for the {@code kind} tag: its class name less "Monitor", lower case ("saturation", "progresswatchdog") */
    private static String kind(Monitor monitor) {
        String n = monitor.getClass().getSimpleName();
        if (n.isEmpty()) {
            n = "monitor";
        }
        return n.replace("Monitor", "").toLowerCase(java.util.Locale.ROOT);
    }

    private static double monitorStatus(Monitor monitor) {
        try {
            Health h = monitor.healthCheck().check();
            return h == null ? statusValue(Status.UNKNOWN) : statusValue(h.status());
        } catch (Exception e) {
            return statusValue(Status.UNKNOWN);
        }
    }

    /**
     * Adds the pool gauges of a saturation monitor ({@value #POOL_SATURATION},
     * {@value #POOL_BUSY}, {@value #POOL_CAPACITY}, {@value #POOL_QUEUED}, tag {@code pool} = the
     * monitor's name) to every bound meter registry, present and future. Gauges read the latest
     * snapshot ({@code NaN} before the first sample); they never sample.
     *
     * @param monitor the monitor
     * @return this
     */
    public VitalsMetrics saturation(SaturationMonitor monitor) {
        Objects.requireNonNull(monitor, "monitor");
        Tags t = tags.and(TAG_POOL, monitor.name());
        return addMonitor(m -> {
            snapshotGauge(m, POOL_SATURATION, t, monitor, x -> x.snapshot().map(SaturationSnapshot::saturation),
                    "busy / capacity of the pool, 0.0-1.0", UNIT_RATIO);
            snapshotGauge(m, POOL_BUSY, t, monitor, x -> x.snapshot().map(s -> (double) s.busy()),
                    "Busy units (threads, permits) of the pool", UNIT_UNITS);
            snapshotGauge(m, POOL_CAPACITY, t, monitor, x -> x.snapshot().map(s -> (double) s.capacity()),
                    "Capacity of the pool", UNIT_UNITS);
            snapshotGauge(m, POOL_QUEUED, t, monitor, x -> x.snapshot().map(s -> (double) s.queued()),
                    "Work waiting for a unit of the pool", BaseUnits.TASKS);
        });
    }

    /**
     * Adds the progress meters of a watchdog ({@value #POOL_COMPLETED}, {@value #POOL_STALLED},
     * {@value #POOL_WITHOUT_PROGRESS}; tag {@code pool} = the watchdog's name).
     *
     * @param watchdog the watchdog
     * @return this
     */
    public VitalsMetrics progress(ProgressWatchdog watchdog) {
        Objects.requireNonNull(watchdog, "watchdog");
        Tags t = tags.and(TAG_POOL, watchdog.name());
        return addMonitor(m -> {
            FunctionCounter.builder(POOL_COMPLETED, watchdog,
                            w -> w.snapshot().map(s -> (double) s.progress().completed()).orElse(0.0))
                    .tags(t).description("Tasks the pool has completed").baseUnit(BaseUnits.TASKS).register(m);
            snapshotGauge(m, POOL_STALLED, t, watchdog, w -> w.snapshot().map(s -> s.stalled() ? 1.0 : 0.0),
                    "1 while the pool is stalled (work waiting, nothing completed for its stall bound), else 0", UNIT_POOLS);
            snapshotGauge(m, POOL_WITHOUT_PROGRESS, t, watchdog, w -> w.snapshot().map(s -> seconds(s.withoutProgress())),
                    "Time since the pool last completed a task while it had work", UNIT_SECONDS);
        });
    }

    /**
     * Adds the lag gauges of a lag monitor ({@value #LAG_CURRENT}, {@value #LAG_MAX},
     * {@value #LAG_P99}, seconds; tag {@code pool} = the monitor's name: the scheduler or event
     * loop it measures).
     *
     * @param monitor the lag monitor
     * @return this
     */
    public VitalsMetrics lag(LagMonitor monitor) {
        Objects.requireNonNull(monitor, "monitor");
        Tags t = tags.and(TAG_POOL, monitor.name());
        return addMonitor(m -> {
            snapshotGauge(m, LAG_CURRENT, t, monitor, x -> x.snapshot().map(s -> seconds(s.current())),
                    "Lag of the latest heartbeat (how late it ran), or how long a pending one has waited", UNIT_SECONDS);
            snapshotGauge(m, LAG_MAX, t, monitor, x -> x.snapshot().map(s -> seconds(s.max())),
                    "Largest heartbeat lag in the window", UNIT_SECONDS);
            snapshotGauge(m, LAG_P99, t, monitor, x -> x.snapshot().map(s -> seconds(s.p99())),
                    "99th percentile of heartbeat lag in the window", UNIT_SECONDS);
        });
    }

    /**
     * Adds the pause gauges of a pause detector ({@value #PAUSE_MAX}, {@value #PAUSE_P99},
     * seconds; tag {@code monitor} = the detector's name).
     *
     * @param detector the pause detector
     * @return this
     */
    public VitalsMetrics pause(PauseDetector detector) {
        Objects.requireNonNull(detector, "detector");
        Tags t = tags.and(TAG_MONITOR, detector.name());
        return addMonitor(m -> {
            snapshotGauge(m, PAUSE_MAX, t, detector, x -> x.snapshot().map(s -> seconds(s.max())),
                    "Longest JVM pause (all threads stalled) in the window", UNIT_SECONDS);
            snapshotGauge(m, PAUSE_P99, t, detector, x -> x.snapshot().map(s -> seconds(s.p99())),
                    "99th percentile of JVM pauses in the window", UNIT_SECONDS);
        });
    }

    private synchronized VitalsMetrics addMonitor(Consumer<MeterRegistry> registration) {
        monitors.add(registration);
        for (Bound b : bound) {
            registration.accept(b.meters);
        }
        return this;
    }

    private static <T> void snapshotGauge(MeterRegistry m, String name, Tags t, T monitor,
                                          Function<T, Optional<Double>> value, String description, String unit) {
        Gauge.builder(name, monitor, x -> value.apply(x).orElse(Double.NaN))
                .tags(t).description(description).baseUnit(unit).strongReference(true)
                .register(m);
    }

    private static double seconds(java.time.Duration d) {
        return d.toNanos() / 1e9;
    }

    /**
     * {@inheritDoc}
     *
     * @return {@code true}: meter updates in memory, so these calls are delivered beside Vitals'
     *     transition log, never behind the application's own listeners (issue 40)
     */
    @Override
    public boolean nonBlocking() {
        return true;
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

    private static double draining(HealthRegistry r) {
        try {
            return r.availability().isDraining() ? 1.0 : 0.0;
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
                    .baseUnit(UNIT_FAILURES)
                    .register(m);
            timeouts = Counter.builder(CHECK_TIMEOUTS).tags(tags)
                    .description("Check results reported as timed out")
                    .baseUnit(UNIT_TIMEOUTS)
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
            Gauge.builder(AVAILABILITY_DRAINING, r, VitalsMetrics::draining).tags(tags)
                    .description("1 while the registry drains for shutdown (readiness refused, liveness kept), else 0")
                    .baseUnit(UNIT_REGISTRIES).register(meters);
            List<String> groups = new ArrayList<>(r.groups());
            for (String g : groups) {
                gauge(GROUP_STATUS, tags.and(TAG_GROUP, g), r, reg -> groupStatus(reg, g),
                        "Current status of the group: 0 UP, 1 DEGRADED, 2 DOWN, 3 UNKNOWN");
            }
        }

        private void gauge(String name, Tags t, HealthRegistry r, ToDoubleFunction<HealthRegistry> f, String description) {
            Gauge.builder(name, r, f).tags(t).description(description).baseUnit(UNIT_STATUS).register(meters);
        }
    }
}
