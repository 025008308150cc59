package dev.vitals;

import dev.vitals.internal.Logs;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The set of registered checks, their groups, and the engine that evaluates them
 * (DESIGN.md section 5): scheduled and on-demand modes, single flight, per-check timeouts,
 * failure isolation, thresholds, aggregation and availability state.
 *
 * <pre>{@code
 * HealthRegistry registry = HealthRegistry.builder()
 *         .register(Check.builder("db", () -> ping(dataSource)).groups(Groups.READINESS).build())
 *         .register(Check.builder("deadlock", deadlockCheck).groups(Groups.LIVENESS).build())
 *         .build();
 * registry.start();
 * Report ready = registry.report(Groups.READINESS);   // never blocks, never runs a check
 * registry.close();
 * }</pre>
 *
 * <p>Reading a report ({@link #report(String)}) never blocks and never runs a check: it reads
 * the latest results held in memory (UNKNOWN when older than a check's {@code maxAge}) and,
 * when nothing changed since the last read, returns the same immutable {@link Report}.
 * {@link #evaluate(String)} additionally runs the group's on-demand checks on Vitals' check
 * executor; it completes within the longest timeout of those checks.
 *
 * <p>Thread-safe. Threads: one daemon scheduler thread ({@code vitals-scheduler}, unless a
 * scheduler is injected), which also runs {@linkplain Check#inline() inline} checks (Vitals'
 * monitors), and check threads for the other checks ({@code vitals-check-N}: platform threads
 * created on demand and ended after 30 s idle; at most one per check, by single flight; virtual
 * threads only if {@link Builder#virtualThreads(boolean)} asks for them). The transition log
 * line ({@code check 'db' is DOWN: …}) is written by a task on the scheduler. Listeners are called
 * on {@code vitals-listener-N} threads, also made on demand and ended after 30 s idle: one for
 * {@linkplain HealthListener#nonBlocking() non-blocking} listeners, up to 4 for the application's
 * listeners (see {@link HealthListener}) and {@linkplain #callbacks callbacks}; none without them.
 */
public final class HealthRegistry implements AutoCloseable {
    private static final System.Logger LOG = Logs.get("dev.vitals");

    private final Clock clock;
    private final Scheduler scheduler;
    private final SystemScheduler ownedScheduler;
    private final ExecutorService executor;
    private final boolean virtualThreads;
    private final List<Check> checks;
    private final List<CheckRunner> runners;
    private final Map<String, GroupState> groups;
    private final Availability availability;
    private final Changes changes;
    private final Notifications notifications;
    private final Duration drainOnShutdown;
    private final Object lifecycle = new Object();
    private Thread shutdownHook; // guarded by lifecycle
    private volatile boolean started;
    private volatile boolean closed;

    // Nothing here hands out "this": the runners and the availability state report changes to
    // a Changes object (group versions and startup completion), built first.
    private HealthRegistry(Builder b) {
        this.clock = b.clock;
        this.ownedScheduler = b.scheduler == null ? new SystemScheduler() : null;
        this.scheduler = b.scheduler != null ? b.scheduler : ownedScheduler;
        this.checks = List.copyOf(b.checks.values());
        boolean preferVirtual = b.virtualThreads;
        this.executor = CheckExecutors.create(preferVirtual);
        this.virtualThreads = preferVirtual && CheckExecutors.virtualThreadsAvailable();

        Map<String, GroupState> gs = new LinkedHashMap<>();
        for (String g : List.of(Groups.LIVENESS, Groups.READINESS, Groups.STARTUP)) {
            gs.put(g, new GroupState(g, true));
        }
        for (String g : b.customGroups) {
            gs.put(g, new GroupState(g, false));
        }
        this.groups = Collections.unmodifiableMap(gs);
        this.changes = new Changes(groups, clock, b.startupCompletion);
        // Automatic completion with no startup check: complete from the start (no log, no event).
        boolean noStartupChecks = checks.stream().noneMatch(c -> c.groups().contains(Groups.STARTUP));
        this.availability = new Availability(changes::availabilityChanged, scheduler,
                b.startupCompletion == StartupCompletion.AUTOMATIC && noStartupChecks);
        changes.availability = availability;

        List<CheckRunner> rs = new ArrayList<>();
        this.notifications = new Notifications(clock, scheduler, b.listeners);
        Timeouts timeouts = new Timeouts(scheduler, clock);
        for (Check c : checks) {
            // Vitals' own snapshot-reading checks run inline: they never wait for a check thread.
            CheckRunner r = new CheckRunner(c, clock, scheduler, c.inline() ? Runnable::run : executor, timeouts, notifications,
                    changes::resultChanged);
            rs.add(r);
            for (String g : c.groups()) {
                gs.get(g).add(r);
            }
        }
        this.runners = List.copyOf(rs);
        timeouts.watch(runners);
        this.drainOnShutdown = b.drainOnShutdown;
    }

    /** @return a new builder with the system clock, Vitals' own scheduler and automatic startup completion */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the schedules: every scheduled check runs once at once, then every interval. With
     * {@link Builder#drainOnShutdown(Duration)}, also installs the JVM shutdown hook (removed by
     * {@link #close()}).
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        synchronized (lifecycle) {
            requireOpen();
            if (started) {
                throw new IllegalStateException("health registry is already started");
            }
            started = true;
            changes.started = true;
            if (drainOnShutdown != null) {
                Availability a = availability;
                Duration delay = drainOnShutdown;
                Thread hook = new Thread(() -> drainOnShutdown(a, delay), "vitals-shutdown-drain");
                Runtime.getRuntime().addShutdownHook(hook);
                shutdownHook = hook;
            }
        }
        for (CheckRunner r : runners) {
            Check c = r.check();
            if (c.dependency() && c.groups().contains(Groups.LIVENESS)) {
                LOG.log(Level.WARNING, "check ''{0}'' is in the liveness group but reaches a remote dependency:"
                        + " a restart cannot cure a remote outage, so an outage would restart every replica at once"
                        + " (DESIGN.md P2: dependencies never belong in liveness); move it to readiness", c.name());
            }
        }
        for (CheckRunner r : runners) {
            if (r.check().mode() == Mode.SCHEDULED) {
                r.startSchedule();
            }
        }
        LOG.log(Level.DEBUG, "health registry started: {0} checks, {1} threads", runners.size(),
                virtualThreads ? "virtual" : "platform");
    }

    /** @return whether {@link #start()} has been called */
    public boolean isStarted() {
        return started;
    }

    /**
     * The group's report from the latest results in memory; never blocks, never runs a check,
     * never changes state (startup completion happens when a result is recorded), never logs and
     * takes no lock that recording holds. Cheap: when no result, staleness or availability
     * changed since the last read, the same report instance is returned, and nothing is
     * allocated.
     *
     * @param group a group name
     * @return the report
     * @throws NoSuchElementException if there is no such group
     * @throws IllegalStateException if the registry is closed
     */
    public Report report(String group) {
        requireOpen();
        GroupState g = groupState(group);
        long now = clock.monotonicTime();
        Cached c = g.cached;
        if (c != null && c.version == g.version.get() && now < c.expiresAt) {
            return c.report;
        }
        return g.rebuild(now, clock, availability);
    }

    /**
     * Evaluates a group: on-demand checks run (or reuse a result younger than their TTL, or join
     * an execution in flight), scheduled checks are read as in {@link #report(String)}. The
     * future completes at the latest when the slowest included on-demand check's timeout expires;
     * it never completes exceptionally. For a group without on-demand checks it is already done.
     *
     * @param group a group name
     * @return the report, when every included check has a result
     * @throws NoSuchElementException if there is no such group
     * @throws IllegalStateException if the registry is closed
     */
    public CompletableFuture<Report> evaluate(String group) {
        return evaluate(group, Set.of());
    }

    /**
     * As {@link #evaluate(String)}, leaving some checks out (they are not run and not shown).
     *
     * @param group a group name
     * @param excluded check names to leave out; names that match nothing are ignored
     * @return the report, when every included check has a result
     * @throws NoSuchElementException if there is no such group
     * @throws IllegalStateException if the registry is closed
     */
    public CompletableFuture<Report> evaluate(String group, Collection<String> excluded) {
        return evaluateWithin(group, excluded, null);
    }

    /**
     * As {@link #evaluate(String, Collection)}, answering by {@code budget} at the latest: an
     * on-demand check still running when the budget runs out reads as its last result if that is
     * younger than its {@code maxAge}, else {@code UNKNOWN}, either way with a message saying it
     * is still running; the execution goes on (single flight), so a later evaluation reads or
     * joins it. This is how a probe is answered before the kubelet's timeout whatever the checks
     * do (issue 19). The budget timer runs on the registry's scheduler.
     *
     * @param group a group name
     * @param excluded check names to leave out; names that match nothing are ignored
     * @param budget the longest wait, at least 1 ms; a budget longer than the slowest timeout
     *     changes nothing
     * @return the report, within the budget (or the slowest timeout, if shorter)
     * @throws NoSuchElementException if there is no such group
     * @throws IllegalStateException if the registry is closed
     * @throws IllegalArgumentException if {@code budget} is shorter than 1 ms or longer than
     *     {@link Check#MAX_DURATION}
     * @throws NullPointerException if an argument is null
     */
    public CompletableFuture<Report> evaluate(String group, Collection<String> excluded, Duration budget) {
        Objects.requireNonNull(budget, "budget");
        if (budget.compareTo(Duration.ofMillis(1)) < 0 || budget.compareTo(Check.MAX_DURATION) > 0) {
            throw new IllegalArgumentException("budget must be in 1 ms.." + Check.MAX_DURATION.toDays() + " days, was " + budget);
        }
        return evaluateWithin(group, excluded, budget);
    }

    /** @param budget null for none */
    private CompletableFuture<Report> evaluateWithin(String group, Collection<String> excluded, Duration budget) {
        requireOpen();
        Objects.requireNonNull(excluded, "excluded");
        GroupState g = groupState(group);
        if (!g.onDemand) {
            return CompletableFuture.completedFuture(report(group).without(excluded));
        }
        long now = clock.monotonicTime();
        Evaluation ev = new Evaluation(g, excluded);
        for (CheckRunner r : g.runners) {
            if (excluded.contains(r.check().name())) {
                continue;
            }
            if (r.check().mode() == Mode.ON_DEMAND) {
                ev.add(r, r.evaluate());
            } else {
                ev.add(r, r.read(now));
            }
        }
        CompletableFuture<Report> answer = ev.start();
        if (budget == null || answer.isDone()) {
            return answer;
        }
        try {
            Scheduler.Cancellable timer = scheduler.schedule(budget.toNanos(), () -> answer.complete(ev.assemble()));
            answer.whenComplete((r, e) -> timer.cancel());
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // scheduler shut down (registry closing): the evaluation still completes by its timeouts
        }
        return answer;
    }

    /**
     * One evaluation of a group: the included checks' results as they arrive, counted down to
     * the report (issue 37: one counter, not the tree of futures {@code allOf} builds). Extends
     * the counter it needs rather than holding one. Thread-safe: slots are written before
     * {@link #start()} publishes them; completions only count down.
     */
    @SuppressWarnings("serial")
    private final class Evaluation extends java.util.concurrent.atomic.AtomicInteger
            implements java.util.function.BiConsumer<Health, Throwable> {
        private final GroupState g;
        private final Collection<String> excluded;
        private final CheckRunner[] included;
        private final Health[] ready; // a result known at once, else null
        private final CompletableFuture<Health>[] running; // an execution to wait for, else null
        private final CompletableFuture<Report> done = new CompletableFuture<>();
        private int size;
        private int waiting;

        @SuppressWarnings("unchecked")
        Evaluation(GroupState g, Collection<String> excluded) {
            this.g = g;
            this.excluded = excluded;
            int n = g.runners.size();
            this.included = new CheckRunner[n];
            this.ready = new Health[n];
            this.running = new CompletableFuture[n];
        }

        void add(CheckRunner r, Health h) {
            included[size] = r;
            ready[size++] = h;
        }

        void add(CheckRunner r, CompletableFuture<Health> f) {
            included[size] = r;
            if (f.isDone()) {
                ready[size] = f.join(); // a runner's future never completes exceptionally
            } else {
                running[size] = f;
                waiting++;
            }
            size++;
        }

        /** @return the report's future, done once every execution waited for has returned or timed out */
        CompletableFuture<Report> start() {
            if (waiting == 0) {
                done.complete(assemble());
                return done;
            }
            set(waiting);
            for (int i = 0; i < size; i++) {
                if (running[i] != null) {
                    running[i].whenComplete(this);
                }
            }
            return done;
        }

        @Override
        public void accept(Health h, Throwable e) {
            if (decrementAndGet() == 0) {
                done.complete(assemble());
            }
        }

        /** The report from what has arrived; an execution still running reads as its runner says. */
        Report assemble() {
            long now = clock.monotonicTime();
            Map<String, Health> m = new LinkedHashMap<>((size + 1) * 4 / 3 + 1); // no resize
            for (int i = 0; i < size; i++) {
                CheckRunner r = included[i];
                Health h = ready[i];
                if (h == null) {
                    CompletableFuture<Health> f = running[i];
                    h = f.isDone() ? f.join() : r.readWhileRunning(now);
                }
                m.put(r.check().name(), h);
            }
            if (g.builtIn && !excluded.contains(Availability.CHECK_NAME)) {
                m.put(Availability.CHECK_NAME, availabilityHealth(availability, g.name));
            }
            return new Report(g.name, m, g.nonCritical, pinnedUp(availability, g.name), Instant.ofEpochMilli(clock.wallTime()));
        }
    }

    /**
     * @param group a group name
     * @return whether the group has on-demand checks, so that answering it needs
     *     {@link #evaluate(String)} rather than {@link #report(String)}
     * @throws NoSuchElementException if there is no such group
     */
    public boolean hasOnDemandChecks(String group) {
        return groupState(group).onDemand;
    }

    /** @return all group names: liveness, readiness, startup, then custom groups in declaration order */
    public Set<String> groups() {
        return groups.keySet();
    }

    /** @return every registered check, in registration order */
    public List<Check> checks() {
        return checks;
    }

    /**
     * @param name a check name
     * @return the registered check of that name, if any
     */
    public Optional<Check> check(String name) {
        for (Check c : checks) {
            if (c.name().equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** @return the application's availability state (startup, broken, traffic, drain) */
    public Availability availability() {
        return availability;
    }

    /** @return the clock this registry reads */
    public Clock clock() {
        return clock;
    }

    /** @return the scheduler this registry runs its schedules and timeouts on */
    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * Listener calls skipped so far (issues 30, 40): notices that arrived while their listener (or
     * the transition log) had been in one call for over 1 s. Each slow episode is also logged once
     * at WARNING on {@code dev.vitals}. Never decreases.
     *
     * @return skipped listener calls (and transition log lines), all listeners and checks
     */
    public long skippedNotifications() {
        return notifications.skipped();
    }

    /**
     * Notices dropped so far because 1,000 already waited for their listener: the oldest goes
     * (issue 40). Each episode is logged once at WARNING on {@code dev.vitals}. Never decreases.
     *
     * @return dropped notices, all listeners and checks
     */
    public long droppedNotifications() {
        return notifications.dropped();
    }

    /**
     * Listener calls that threw so far (issue 40). A listener's first failure after a normal
     * return is logged once at WARNING (its class, the exception); the rest are only counted.
     * Never decreases.
     *
     * @return failed listener calls, all listeners
     */
    public long failedNotifications() {
        return notifications.failed();
    }

    /**
     * An executor for application code that an integration hands over from a Vitals thread
     * (issue 37: the Spring starter publishes Spring's availability events with it, from a task on
     * the scheduler). Its tasks run where the application's {@link HealthListener listeners} are
     * called, on {@code vitals-listener-N} threads, never on the scheduler, a check thread or the
     * calling thread, and under the listeners' rules (DESIGN.md section 5): one task at a time,
     * in submission order; at most 1,000 waiting, then the oldest is dropped
     * ({@link #droppedNotifications()}); a task running over 1 s makes the executor slow, and
     * tasks submitted until it returns are skipped ({@link #skippedNotifications()}, one WARNING
     * naming {@code name} per episode) while its thread is replaced for the listeners; a task
     * that throws is logged once per transition and counted ({@link #failedNotifications()}). So
     * a task that hangs stops neither the scheduler, nor probes, nor other listeners. No thread
     * of its own: it shares the application listeners' delivery (at most 4 threads). Dropped and
     * skipped tasks are counted, not rejected; after {@link #close()} tasks are dropped.
     *
     * <p>Thread-safe; {@code execute} never blocks and never runs the task on the caller's thread.
     *
     * @param name names the callbacks in log lines: letters, digits, {@code .}, {@code _}, {@code -}
     * @return a new executor, with a queue of its own
     * @throws IllegalArgumentException if the name is not valid
     */
    public Executor callbacks(String name) {
        if (name == null || !Names.isValid(name)) {
            throw new IllegalArgumentException("callback name must be letters, digits, '.', '_' or '-', was "
                    + (name == null ? "null" : "'" + LogText.escape(name, LogText.CLIENT_CHARS) + "'"));
        }
        return notifications.callbacks(name);
    }

    /** @return listener delivery threads alive now ({@code vitals-listener-N}); for tests */
    int listenerThreads() {
        return notifications.threads();
    }

    /** @return whether checks run on virtual threads */
    public boolean usesVirtualThreads() {
        return virtualThreads;
    }

    /**
     * Stops schedules and the check executor without waiting for checks in flight (their
     * threads are interrupted and abandoned), and removes the shutdown hook installed by
     * {@link #start()}. Idempotent. Reads and evaluations then fail.
     */
    @Override
    public void close() {
        Thread hook;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            hook = shutdownHook;
            shutdownHook = null;
        }
        for (CheckRunner r : runners) {
            r.close();
        }
        executor.shutdownNow();
        notifications.close();
        if (ownedScheduler != null) {
            ownedScheduler.shutdown();
        }
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down already
            }
        }
    }

    /** @return whether a shutdown hook is installed (between {@link #start()} and {@link #close()}), for tests */
    boolean hasShutdownHook() {
        synchronized (lifecycle) {
            return shutdownHook != null;
        }
    }

    /** @return the runner of a check, for tests that need the lock recording holds */
    CheckRunner runner(String name) {
        for (CheckRunner r : runners) {
            if (r.check().name().equals(name)) {
                return r;
            }
        }
        throw new NoSuchElementException("no check '" + name + "'");
    }

    // ---------------------------------------------------------------- internals

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("health registry is closed");
        }
    }

    private GroupState groupState(String group) {
        GroupState g = groups.get(Objects.requireNonNull(group, "group"));
        if (g == null) {
            throw new NoSuchElementException("no group '" + group + "'; groups are " + groups.keySet());
        }
        return g;
    }

    private static boolean pinnedUp(Availability availability, String group) {
        return Groups.STARTUP.equals(group) && availability.isStartupComplete();
    }

    private static Health availabilityHealth(Availability availability, String group) {
        switch (group) {
            case Groups.LIVENESS:
                return availability.livenessHealth();
            case Groups.READINESS:
                return availability.readinessHealth();
            default:
                return availability.startupHealth();
        }
    }

    private static void drainOnShutdown(Availability availability, Duration delay) {
        try {
            availability.drain(delay).get(delay.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.log(Level.WARNING, "drain on shutdown did not complete: " + e);
        }
    }

    /**
     * Where state changes are turned into new report versions and startup completion: called by
     * the runners after a result is recorded (outside their locks) and by {@link Availability}
     * after it changed. Reads never come here.
     */
    private static final class Changes {
        private final Map<String, GroupState> groups;
        private final Clock clock;
        private final StartupCompletion completion;
        // Set once in the registry's constructor, before any check can run.
        Availability availability;
        volatile boolean started;

        Changes(Map<String, GroupState> groups, Clock clock, StartupCompletion completion) {
            this.groups = groups;
            this.clock = clock;
            this.completion = completion;
        }

        void resultChanged(CheckRunner r) {
            for (String g : r.groups()) {
                groups.get(g).version.incrementAndGet();
            }
            if (r.inStartup()) {
                maybeCompleteStartup();
            }
        }

        void availabilityChanged(String what) {
            LOG.log(started ? Level.INFO : Level.DEBUG, "availability: {0}", what);
            for (GroupState g : groups.values()) {
                g.version.incrementAndGet();
            }
        }

        /**
         * Automatic completion: the first time every startup check has a result and the group
         * passes. A check without a result yet never counts as passed, whatever it reads before.
         */
        private void maybeCompleteStartup() {
            if (completion != StartupCompletion.AUTOMATIC || availability.isStartupComplete()) {
                return;
            }
            long now = clock.monotonicTime();
            Map<String, Health> m = new LinkedHashMap<>();
            GroupState g = groups.get(Groups.STARTUP);
            for (CheckRunner r : g.runners) {
                if (r.latest() == null) {
                    return;
                }
                m.put(r.check().name(), r.read(now));
            }
            if (Report.aggregate(m, g.nonCritical).isHealthy()) {
                availability.markStartupComplete();
            }
        }
    }

    private static final class Cached {
        final Report report;
        final long version;
        final long expiresAt;

        Cached(Report report, long version, long expiresAt) {
            this.report = report;
            this.version = version;
            this.expiresAt = expiresAt;
        }
    }

    private static final class GroupState {
        final String name;
        final boolean builtIn;
        final List<CheckRunner> runners = new ArrayList<>();
        final Set<String> nonCritical = new HashSet<>();
        final AtomicLong version = new AtomicLong();
        boolean onDemand;
        volatile Cached cached;

        GroupState(String name, boolean builtIn) {
            this.name = name;
            this.builtIn = builtIn;
        }

        void add(CheckRunner r) {
            runners.add(r);
            if (!r.check().critical()) {
                nonCritical.add(r.check().name());
            }
            onDemand |= r.check().mode() == Mode.ON_DEMAND;
        }

        Report rebuild(long now, Clock clock, Availability availability) {
            long v = version.get();
            Map<String, Health> m = new LinkedHashMap<>();
            long expiresAt = Long.MAX_VALUE;
            for (CheckRunner r : runners) {
                m.put(r.check().name(), r.read(now));
                CheckRunner.Sample s = r.latest();
                if (s != null) {
                    long staleAt = s.nanos + r.maxAgeNanos() + 1;
                    if (staleAt - now > 0 && staleAt - expiresAt < 0) {
                        expiresAt = staleAt;
                    }
                }
            }
            if (builtIn) {
                m.put(Availability.CHECK_NAME, availabilityHealth(availability, name));
            }
            Report report = new Report(name, m, nonCritical, pinnedUp(availability, name),
                    Instant.ofEpochMilli(clock.wallTime()));
            cached = new Cached(report, v, expiresAt);
            return report;
        }
    }

    /**
     * Builds a {@link HealthRegistry}. Validation happens in {@link #build()}, with messages that
     * name the check and the field. Not thread-safe.
     */
    public static final class Builder {
        private Clock clock = Clock.SYSTEM;
        private Scheduler scheduler;
        private final Set<String> customGroups = new LinkedHashSet<>();
        private final Map<String, Check> checks = new LinkedHashMap<>();
        private final List<String> duplicates = new ArrayList<>();
        private final List<HealthListener> listeners = new ArrayList<>();
        private StartupCompletion startupCompletion = StartupCompletion.AUTOMATIC;
        private boolean virtualThreads;
        private Duration drainOnShutdown;

        private Builder() {
        }

        /**
         * @param clock the time source; default {@link Clock#SYSTEM}
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param scheduler runs schedules, timeouts and drain delays; default: Vitals' own single
         *     daemon thread, shut down by {@link HealthRegistry#close()}. An injected scheduler
         *     is not shut down by the registry.
         * @return this builder
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Declares a custom group that checks may name.
         *
         * @param name group name: letters, digits, {@code . _ -}
         * @return this builder
         * @throws IllegalArgumentException if the name is blank, malformed or a built-in group
         */
        public Builder group(String name) {
            Names.requireValid("group name", name);
            if (Groups.isBuiltIn(name)) {
                throw new IllegalArgumentException("group '" + name + "' is built in; declare only custom groups");
            }
            customGroups.add(name);
            return this;
        }

        /**
         * @param check a check to register; its name must be unique (checked in {@link #build()})
         * @return this builder
         */
        public Builder register(Check check) {
            Objects.requireNonNull(check, "check");
            if (checks.putIfAbsent(check.name(), check) != null) {
                duplicates.add(check.name());
            }
            return this;
        }

        /**
         * @param listener told of every execution of every check (metrics), on a
         *     {@code vitals-listener-N} thread, never on the scheduler or a check thread, through its
         *     own queue; see {@link HealthListener} for ordering, isolation and what happens to a
         *     slow or throwing listener
         * @return this builder
         */
        public Builder listener(HealthListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * @param completion how startup completes; default {@link StartupCompletion#AUTOMATIC}
         * @return this builder
         */
        public Builder startupCompletion(StartupCompletion completion) {
            this.startupCompletion = Objects.requireNonNull(completion, "completion");
            return this;
        }

        /**
         * @param virtualThreads whether checks run on virtual threads where the JVM has them
         *     (Java 21+); default {@code false}: platform threads, created on demand. A check
         *     that spins or pins (a {@code synchronized} block around I/O before Java 24, native
         *     code) holds its virtual thread's carrier; with as many such checks as carriers
         *     ({@code ActiveProcessorCount}), every other check and the application's own virtual
         *     threads stop (DESIGN.md section 5, "Threads"). On Java 17 platform threads are used
         *     anyway.
         * @return this builder
         */
        public Builder virtualThreads(boolean virtualThreads) {
            this.virtualThreads = virtualThreads;
            return this;
        }

        /**
         * Opt-in: a JVM shutdown hook that starts a drain ({@link Availability#drain(Duration)})
         * and waits for its delay, so readiness fails before the process stops (DESIGN.md P10).
         *
         * @param delay drain delay, not negative
         * @return this builder
         * @throws IllegalArgumentException if {@code delay} is negative
         */
        public Builder drainOnShutdown(Duration delay) {
            Objects.requireNonNull(delay, "delay");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("drainOnShutdown delay must not be negative, was " + delay);
            }
            this.drainOnShutdown = delay;
            return this;
        }

        /**
         * @return the registry, not started
         * @throws IllegalArgumentException on a duplicate check name, a check named
         *     {@value Availability#CHECK_NAME}, or a check naming an undeclared group
         */
        public HealthRegistry build() {
            if (!duplicates.isEmpty()) {
                throw new IllegalArgumentException("check '" + duplicates.get(0) + "': name registered twice");
            }
            for (Check c : checks.values()) {
                if (Availability.CHECK_NAME.equals(c.name())) {
                    throw new IllegalArgumentException("check '" + c.name() + "': name is reserved for the availability state");
                }
                for (String g : c.groups()) {
                    if (!Groups.isBuiltIn(g) && !customGroups.contains(g)) {
                        throw new IllegalArgumentException("check '" + c.name() + "': groups names unknown group '" + g
                                + "'; declare it with HealthRegistry.Builder.group(\"" + g + "\")");
                    }
                }
            }
            return new HealthRegistry(this);
        }
    }
}
