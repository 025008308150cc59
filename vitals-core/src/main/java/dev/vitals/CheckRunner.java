package dev.vitals;

import dev.vitals.internal.Logs;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs one check: single flight, timeout, failure isolation and thresholds (DESIGN.md section 5).
 * Thread-safe: state transitions are guarded by {@code this}; the latest sample is volatile so
 * reads never lock. Nothing outside Vitals runs under the lock, nor on this runner's threads:
 * recording queues the transition log line and the listeners' calls on their
 * {@link Notifications} lanes (in recording order, without waiting); once the lock is released
 * the recording thread calls {@code onChange} (Vitals' own, cheap) and completes the execution's
 * future.
 */
final class CheckRunner {
    private static final System.Logger LOG = Logs.get("dev.vitals");

    /** A reported health and the monotonic time (ns) at which it was recorded. */
    static final class Sample {
        final Health health;
        final long nanos;

        Sample(Health health, long nanos) {
            this.health = health;
            this.nanos = nanos;
        }
    }

    private final Check check;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Executor executor;
    private final Timeouts timeouts;
    private final List<Notifications.Lane> lanes;
    private final boolean hasListeners;
    private final Consumer<CheckRunner> onChange;
    private final long timeoutNanos;
    private final long maxAgeNanos;
    private final long ttlNanos;
    private final HealthCheck blocking; // the check's blocking form, or null (then asyncCheck is present)
    private final String[] groups; // the check's groups, for the registry's change callback (no iterator per result)
    private final boolean inStartup;

    private volatile Sample latest;

    // Guarded by this.
    private InFlight inFlight;
    private boolean closed;
    private boolean effectivePass;
    private boolean lastPass;
    private int run;
    private Scheduler.Cancellable nextTick;

    CheckRunner(Check check, Clock clock, Scheduler scheduler, Executor executor, Timeouts timeouts,
                Notifications notifications, Consumer<CheckRunner> onChange) {
        this.check = check;
        this.clock = clock;
        this.scheduler = scheduler;
        this.executor = executor;
        this.timeouts = timeouts;
        this.lanes = notifications.lanesFor(check);
        this.hasListeners = notifications.hasListeners();
        this.onChange = onChange;
        this.timeoutNanos = check.timeout().toNanos();
        this.maxAgeNanos = check.maxAge().toNanos();
        this.ttlNanos = check.ttl().toNanos();
        this.blocking = check.blockingCheck().orElse(null);
        this.groups = check.groups().toArray(new String[0]);
        this.inStartup = check.groups().contains(Groups.STARTUP);
    }

    Check check() {
        return check;
    }

    /** @return the check's groups (do not modify) */
    String[] groups() {
        return groups;
    }

    /** @return whether the check is in the startup group */
    boolean inStartup() {
        return inStartup;
    }

    Sample latest() {
        return latest;
    }

    long maxAgeNanos() {
        return maxAgeNanos;
    }

    /**
     * The health a report shows now, without running anything: the latest sample, UNKNOWN when
     * there is none or when it is older than maxAge.
     */
    Health read(long now) {
        Sample s = latest;
        if (s == null) {
            return check.beforeFirstResult();
        }
        long age = now - s.nanos;
        if (age > maxAgeNanos) {
            return stale(s);
        }
        return s.health;
    }

    /**
     * For an evaluation whose budget ran out while this check runs: the latest result, marked
     * "still running", if younger than maxAge, else UNKNOWN.
     */
    Health readWhileRunning(long now) {
        long running;
        synchronized (this) {
            running = inFlight == null ? 0 : now - inFlight.startNanos;
        }
        String what = "still running (" + Duration.ofNanos(Math.max(0, running)).toMillis() + " ms)";
        Sample s = latest;
        if (s == null) {
            return Health.unknown(what + ", no result yet");
        }
        long age = now - s.nanos;
        if (age > maxAgeNanos) {
            return Health.builder(Status.UNKNOWN).message(what + "; last result " + Duration.ofNanos(age).toMillis()
                    + " ms old (maxAge " + check.maxAge().toMillis() + " ms)").build()
                    .withTiming(s.health.duration(), s.health.observedAt());
        }
        return s.health.withStatus(s.health.status(), what + "; last result " + Duration.ofNanos(age).toMillis()
                + " ms old" + s.health.message().map(m -> ": " + m).orElse(""));
    }

    /**
     * The stale result. Its message holds no age: a read caches it until the next result, so an
     * age would be the one at the moment it went stale, frozen (a fresh user read "31000 ms old"
     * minutes later); the last result's time stays true.
     */
    private Health stale(Sample s) {
        return Health.builder(Status.UNKNOWN)
                .message("stale: no result for longer than maxAge (" + check.maxAge().toMillis()
                        + " ms); the last one was observed at " + s.health.observedAt())
                .build().withTiming(s.health.duration(), s.health.observedAt());
    }

    /**
     * For on-demand evaluation: the latest result when younger than the TTL, else a new
     * execution (or the one in flight).
     */
    CompletableFuture<Health> evaluate() {
        Sample s = latest;
        if (s != null && clock.monotonicTime() - s.nanos < ttlNanos) {
            return CompletableFuture.completedFuture(s.health);
        }
        return execute();
    }

    /** Starts the schedule: the first execution at once, then one every interval. */
    void startSchedule() {
        tick(clock.monotonicTime());
    }

    private void tick(long due) {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        execute(true);
        long next = due + check.interval().toNanos();
        long now = clock.monotonicTime();
        if (next < now) {
            next = now; // fell behind (scheduler starved): run once now, drop the missed ticks
        }
        long at = next;
        try {
            Scheduler.Cancellable c = scheduler.schedule(at - now, () -> tick(at));
            synchronized (this) {
                if (closed) {
                    c.cancel();
                } else {
                    nextTick = c;
                }
            }
        } catch (RejectedExecutionException e) {
            LOG.log(Level.DEBUG, "check ''{0}'': scheduler refused the next run", check.name());
        }
    }

    /**
     * Runs the check once, or joins the execution in flight. The future always completes, at
     * the latest when the check's timeout expires, with the reported (threshold-filtered) health.
     */
    CompletableFuture<Health> execute() {
        return execute(false);
    }

    /**
     * @param tick whether a scheduled run asks: if it finds an execution hung past its timeout,
     *     a new execution starts as soon as that one returns (the dependency is probably back),
     *     rather than at the next tick, so a recovery is seen within the check's own duration
     *     instead of up to an interval later
     */
    private CompletableFuture<Health> execute(boolean tick) {
        InFlight started;
        Health repeated;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.completedFuture(Health.unknown("registry closed"));
            }
            if (inFlight != null) {
                long running = clock.monotonicTime() - inFlight.startNanos;
                if (running < timeoutNanos) {
                    return inFlight;
                }
                // Hung: report the timeout again, never start a second execution.
                inFlight.rerun |= tick;
                repeated = recordLocked(timedOut(running), true);
                started = null;
            } else {
                repeated = null;
                started = new InFlight(clock.monotonicTime(), clock.wallTime());
                inFlight = started;
            }
        }
        if (started == null) {
            afterRecord(null, repeated);
            return CompletableFuture.completedFuture(repeated);
        }
        try {
            timeouts.arm(started.startNanos + timeoutNanos);
            executor.execute(started);
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                if (inFlight == started) {
                    inFlight = null;
                }
            }
            Health h = Health.builder(Status.UNKNOWN).message(closed ? "registry closed" : "check executor refused the execution")
                    .errorType(e.getClass().getName()).build();
            complete(started, h, false);
        }
        return started;
    }

    /**
     * Runs the execution on the current thread. The thread keeps its name (a thread's name is a
     * system call to set, twice per execution, issue 37) unless the check outlives its timeout:
     * then {@link #expireIfDue(long)} names it {@code vitals-check-<check>} for thread dumps, and
     * it gets its own name back when the check returns.
     */
    private void run(InFlight f) {
        if (blocking != null) {
            Thread t = Thread.currentThread();
            if (!check.inline()) { // an inline check runs on the scheduler thread, which is never renamed
                f.thread = t;
            }
            Health h;
            try {
                h = blocking.check();
            } catch (InterruptedException e) {
                t.interrupt();
                h = Health.down(e);
            } catch (Throwable e) {
                h = Health.down(e);
            }
            finish(f, h);
        } else {
            CompletionStage<Health> stage;
            try {
                stage = check.asyncCheck().get().check();
            } catch (Throwable e) {
                finish(f, Health.down(e));
                return;
            }
            if (stage == null) {
                finish(f, null);
                return;
            }
            stage.whenComplete((h, e) -> finish(f, e != null ? Health.down(unwrap(e)) : h));
        }
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** The execution returned (in time or late). */
    private void finish(InFlight f, Health raw) {
        long end = clock.monotonicTime();
        Health h = raw != null ? raw : Health.builder(Status.DOWN).message("check returned null")
                .errorType(NullPointerException.class.getName()).build();
        h = h.withTiming(Duration.ofNanos(Math.max(0, end - f.startNanos)), Instant.ofEpochMilli(f.startWall));
        Health reported = null;
        boolean rerun;
        String ownName = null;
        synchronized (this) {
            if (f.thread != null) { // the executing thread, back from a blocking check
                ownName = f.ownName;
                f.thread = null;
            }
            // Record and leave flight in one step, so a next execution can never record
            // before this one (results stay in execution order).
            if (!f.recorded) {
                f.recorded = true;
                reported = recordLocked(h, false);
            } // else: a late result, after the timeout was reported; dropped
            if (inFlight == f) {
                inFlight = null;
            }
            rerun = f.rerun && !closed;
        }
        if (rerun) {
            // A scheduled run was skipped while this one hung: run again now, not an interval later.
            try {
                scheduler.schedule(0, this::execute);
            } catch (RejectedExecutionException e) {
                LOG.log(Level.DEBUG, "check ''{0}'': scheduler refused the run after a hang", check.name());
            }
        }
        if (ownName != null) {
            Thread.currentThread().setName(ownName);
        }
        if (reported != null) {
            afterRecord(f, reported);
        }
    }

    /**
     * Called by the {@link Timeouts} timer: reports the execution in flight as timed out if its
     * timeout has passed, naming its thread after the check (the thread a dump should show).
     *
     * @param now the monotonic time (ns)
     * @return the nanoseconds left before the execution in flight times out, or 0 when none is
     *     waiting for its timeout
     */
    long expireIfDue(long now) {
        InFlight f;
        Health reported;
        synchronized (this) {
            f = inFlight;
            if (f == null || f.recorded) {
                return 0;
            }
            long running = now - f.startNanos;
            if (running < timeoutNanos) {
                return timeoutNanos - running;
            }
            f.recorded = true;
            reported = recordLocked(timedOut(running), true);
            Thread t = f.thread;
            if (t != null) {
                f.ownName = t.getName();
                t.setName("vitals-check-" + check.name());
            }
        }
        afterRecord(f, reported);
        return 0;
    }

    private void complete(InFlight f, Health h, boolean timedOut) {
        Health reported;
        synchronized (this) {
            if (f.recorded) {
                return;
            }
            f.recorded = true;
            reported = recordLocked(h, timedOut);
        }
        afterRecord(f, reported);
    }

    private Health timedOut(long runningNanos) {
        long runningMs = Duration.ofNanos(runningNanos).toMillis();
        return Health.builder(Status.DOWN)
                .message("timed out after " + check.timeout().toMillis() + " ms (running " + runningMs + " ms)")
                .errorType(TimeoutException.class.getName())
                .build()
                .withTiming(Duration.ofNanos(runningNanos), Instant.ofEpochMilli(clock.wallTime()));
    }

    /**
     * Applies thresholds, stores the sample and queues its notices; the caller holds the lock and
     * calls {@link #afterRecord} once it has released it.
     */
    private Health recordLocked(Health raw, boolean timedOut) {
        if (raw.observedAt().equals(Instant.EPOCH)) {
            raw = raw.withTiming(raw.duration(), Instant.ofEpochMilli(clock.wallTime()));
        }
        boolean pass = raw.status().isHealthy();
        Sample previous = latest;
        Health reported;
        if (previous == null) {
            effectivePass = pass;
            lastPass = pass;
            run = 1;
            reported = raw;
        } else {
            if (pass == lastPass) {
                run++;
            } else {
                lastPass = pass;
                run = 1;
            }
            if (pass == effectivePass) {
                reported = raw;
            } else {
                int threshold = pass ? check.successThreshold() : check.failureThreshold();
                if (run >= threshold) {
                    effectivePass = pass;
                    reported = raw;
                } else {
                    Status held = previous.health.status();
                    if (held.isHealthy() != effectivePass) {
                        held = effectivePass ? Status.UP : Status.DOWN;
                    }
                    reported = raw.withStatus(held, "pending " + raw.status() + " (" + run + " of " + threshold
                            + " consecutive results)" + raw.message().map(m -> ": " + m).orElse(""));
                }
            }
        }
        latest = new Sample(reported, clock.monotonicTime());
        boolean transition = previous == null ? reported.status() != Status.UP
                : previous.health.status() != reported.status()
                        || !reported.status().isHealthy() && !sameReason(previous.health, reported);
        if (transition || hasListeners) {
            Notifications.Notice n = new Notifications.Notice(raw, reported, timedOut, transition);
            for (Notifications.Lane lane : lanes) {
                lane.submit(n); // queues only; under the lock so that notices keep recording order
            }
        }
        return reported;
    }

    /**
     * Whether two results give the same reason: their messages equal once every run of digits
     * is taken as one (counters and elapsed times change from run to run). A check that stays
     * DOWN for another reason gets a transition log line again: the last line must not name a
     * reason that no longer holds (a fresh user read "waiting for the application to listen"
     * while the application answered 503).
     */
    private static boolean sameReason(Health a, Health b) {
        return withoutDigits(a.message().orElse("")).equals(withoutDigits(b.message().orElse("")));
    }

    private static String withoutDigits(String m) {
        StringBuilder out = new StringBuilder(m.length());
        boolean inDigits = false;
        for (int i = 0; i < m.length(); i++) {
            char c = m.charAt(i);
            boolean digit = c >= '0' && c <= '9';
            if (!digit || !inDigits) {
                out.append(digit ? '#' : c);
            }
            inDigits = digit;
        }
        return out.toString();
    }

    /**
     * Runs after a result was recorded and the lock released, on the recording thread: the
     * registry's change callback (cheap, Vitals' own), then the execution's future. Listeners are
     * told on their own threads ({@link Notifications}), possibly after the future completes.
     */
    private void afterRecord(InFlight f, Health reported) {
        onChange.accept(this);
        if (f != null) {
            f.complete(reported);
        }
    }

    /** Stops the schedule; an execution in flight is abandoned (its thread is interrupted by the executor's shutdown). */
    void close() {
        Scheduler.Cancellable t;
        synchronized (this) {
            closed = true;
            t = nextTick;
            nextTick = null;
        }
        if (t != null) {
            t.cancel();
        }
    }

    /**
     * One execution: its own future (what callers join; one object, not two, issue 37) and, as a
     * task for the executor, what runs the check.
     */
    @SuppressWarnings("serial")
    private final class InFlight extends CompletableFuture<Health> implements Runnable {
        final long startNanos;
        final long startWall;
        // The thread inside a blocking check's call: set by it, cleared under the runner's lock.
        volatile Thread thread;
        String ownName; // guarded by the runner's lock: the thread's name before its timeout renamed it
        boolean recorded; // guarded by the runner's lock
        boolean rerun; // guarded by the runner's lock: a scheduled run was skipped while this one hung

        InFlight(long startNanos, long startWall) {
            this.startNanos = startNanos;
            this.startWall = startWall;
        }

        @Override
        public void run() {
            CheckRunner.this.run(this);
        }
    }
}
