package dev.vitals;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps readiness DOWN until the application has warmed up, so that a new pod of a rolling
 * update gets its share of traffic only once its JIT and caches are warm (a cold JVM serves its
 * first requests several times slower; the port being open says nothing about that).
 *
 * <p>Warm means every condition configured here has been met, whichever of:
 * <ul>
 * <li><b>a warm-up routine has run</b>: {@link Builder#routine(Runnable)}, run once by
 *     {@link #start()} on a thread of its own ({@code vitals-warmup}), e.g. a few hundred calls of
 *     the hot paths against the application itself; or the application calls {@link #markWarm()};</li>
 * <li><b>N requests completed within their normal latency</b>: {@link Builder#requests(int, Duration)};
 *     the application (a filter, the routine's own calls) reports each with
 *     {@link #recordRequest(Duration)}. Requests slower than the normal latency do not count.</li>
 * </ul>
 * A readiness DOWN pod gets no traffic through a Service, so the requests that warm it must come
 * from the routine, from the pod itself, or from kept connections; {@link Builder#maxWait(Duration)}
 * (required) bounds the wait: after it, the check reads {@link Status#DEGRADED} (ready, HTTP 200,
 * with what was missing), never DOWN forever. A routine that throws counts as run; the check
 * then reads DEGRADED with the error's type.
 *
 * <pre>{@code
 * Warmup warmup = Warmup.builder()
 *         .routine(() -> selfTest.run(500))                   // or .requests(200, Duration.ofMillis(50))
 *         .maxWait(Duration.ofSeconds(90))
 *         .build();
 * HealthRegistry registry = HealthRegistry.builder().register(warmup.check()).build();
 * registry.start();
 * warmup.start();                                            // once the application listens
 * }</pre>
 *
 * <p>Thread-safe: {@link #recordRequest(Duration)} is a few atomic operations and may be called
 * from every worker thread; {@link #health()} reads state and never blocks.
 */
public final class Warmup {
    /** The check's default name: {@code warmup}. */
    public static final String DEFAULT_NAME = "warmup";

    private final String name;
    private final Runnable routine;
    private final int requests;
    private final long normalLatencyNanos;
    private final Duration normalLatency;
    private final Duration maxWait;
    private final Clock clock;
    private final AtomicLong startedAt = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong withinNormal = new AtomicLong();
    private final AtomicLong slower = new AtomicLong();
    /** null: not run yet; "" ran; otherwise the error's type. */
    private final AtomicReference<String> routineOutcome = new AtomicReference<>();
    private volatile long warmAt = Long.MIN_VALUE;

    private Warmup(Builder b) {
        this.name = b.name;
        this.routine = b.routine;
        this.requests = b.requests;
        this.normalLatency = b.normalLatency;
        this.normalLatencyNanos = b.normalLatency == null ? 0 : b.normalLatency.toNanos();
        this.maxWait = b.maxWait;
        this.clock = b.clock;
    }

    /** @return a builder; the check is named {@value #DEFAULT_NAME} unless {@link Builder#name(String)} says otherwise */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the wait (the maximum wait counts from here) and, when a routine was given, runs it
     * once on a new daemon thread {@code vitals-warmup}. A second call does nothing.
     */
    public void start() {
        if (!startedAt.compareAndSet(Long.MIN_VALUE, clock.monotonicTime())) {
            return;
        }
        if (routine != null) {
            Thread t = new Thread(this::runRoutine, "vitals-warmup");
            t.setDaemon(true);
            t.start();
        }
    }

    /** Runs the routine on the calling thread (what {@link #start()}'s thread does). */
    void runRoutine() {
        try {
            routine.run();
            routineOutcome.compareAndSet(null, "");
        } catch (Throwable e) { // NOPMD: any failure of user code counts as "ran, failed"
            routineOutcome.compareAndSet(null, e.getClass().getName());
        }
    }

    /** The application says its warm-up has run (instead of, or as well as, a routine given here). */
    public void markWarm() {
        routineOutcome.compareAndSet(null, "");
    }

    /**
     * Reports one completed request.
     *
     * @param latency how long it took
     * @throws NullPointerException when {@code latency} is null
     */
    public void recordRequest(Duration latency) {
        recordRequestNanos(latency.toNanos());
    }

    /** @param latencyNanos how long one completed request took, ns */
    public void recordRequestNanos(long latencyNanos) {
        if (requests > 0 && latencyNanos <= normalLatencyNanos) {
            withinNormal.incrementAndGet();
        } else if (requests > 0) {
            slower.incrementAndGet();
        }
    }

    /** @return true once every configured condition has been met (the maximum wait does not make it warm) */
    public boolean warm() {
        if (warmAt != Long.MIN_VALUE) {
            return true;
        }
        boolean routineDone = (routine == null && requests > 0) || routineOutcome.get() != null;
        boolean requestsDone = requests == 0 || withinNormal.get() >= requests;
        if (routineDone && requestsDone) {
            warmAt = clock.monotonicTime();
            return true;
        }
        return false;
    }

    /**
     * @return UP "warm" once warm; DOWN "warming up: …" before, with what is missing and the time
     *     waited; DEGRADED "warm-up incomplete after …" once the maximum wait has passed (or when
     *     the routine threw); DOWN "warm-up not started" before {@link #start()}
     */
    public Health health() {
        String outcome = routineOutcome.get();
        if (warm()) {
            return outcome != null && !outcome.isEmpty() ? Health.degraded("warm-up routine failed: " + outcome) : Health.up();
        }
        long started = startedAt.get();
        if (started == Long.MIN_VALUE) {
            return Health.down("warm-up not started");
        }
        long waited = clock.monotonicTime() - started;
        String missing = missing(outcome);
        if (waited >= maxWait.toNanos()) {
            return Health.degraded("warm-up incomplete after " + seconds(maxWait.toNanos()) + ": " + missing);
        }
        return Health.down("warming up for " + seconds(waited) + " of " + seconds(maxWait.toNanos()) + ": " + missing);
    }

    private String missing(String outcome) {
        StringBuilder sb = new StringBuilder();
        if (routine != null && outcome == null) {
            sb.append("routine running");
        } else if (routine == null && requests == 0 && outcome == null) {
            sb.append("waiting for markWarm()");
        }
        if (requests > 0 && withinNormal.get() < requests) {
            if (sb.length() > 0) {
                sb.append("; ");
            }
            sb.append(withinNormal.get()).append(" of ").append(requests).append(" requests within ")
                    .append(normalLatency.toMillis()).append(" ms (").append(slower.get()).append(" slower)");
        }
        return sb.toString();
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    /**
     * @return a readiness check of this warm-up: inline (it only reads state), scheduled every
     *     second, named as built, reading DOWN "warm-up not started" until its first run
     */
    public Check check() {
        return Check.builder(name, this::health).groups(Groups.READINESS).inline(true).interval(Duration.ofSeconds(1))
                .beforeFirstResult(Health.down("warm-up not started")).build();
    }

    /** @return the check's name */
    public String name() {
        return name;
    }

    /** Builds a {@link Warmup}. Not thread-safe. */
    public static final class Builder {
        private String name = DEFAULT_NAME;
        private Runnable routine;
        private int requests;
        private Duration normalLatency;
        private Duration maxWait;
        private Clock clock = Clock.SYSTEM;

        private Builder() {
        }

        /**
         * @param name the check's name ({@link Names} rule)
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * @param routine run once by {@link Warmup#start()} on its own thread; warm once it returned or threw
         * @return this builder
         */
        public Builder routine(Runnable routine) {
            this.routine = Objects.requireNonNull(routine, "routine");
            return this;
        }

        /**
         * @param count requests that must complete within {@code normalLatency}, ≥ 1
         * @param normalLatency the application's normal latency for them, ≥ 1 ms
         * @return this builder
         */
        public Builder requests(int count, Duration normalLatency) {
            this.requests = count;
            this.normalLatency = Objects.requireNonNull(normalLatency, "normalLatency");
            return this;
        }

        /**
         * @param maxWait after this long from {@link Warmup#start()} the check reads DEGRADED (ready)
         *     however far warm-up got; 1 ms – 1 h
         * @return this builder
         */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
            return this;
        }

        /**
         * @param clock the time source (tests: vitals-testing's ManualClock)
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @return the warm-up
         * @throws IllegalArgumentException naming the field: no maximum wait, a count under 1
         *     with a latency, a latency under 1 ms, a wait outside 1 ms – 1 h, or a bad name
         */
        public Warmup build() {
            Names.requireValid("warmup", name);
            if (maxWait == null) {
                throw new IllegalArgumentException("warmup '" + name + "': maxWait is required (readiness must not wait forever)");
            }
            if (maxWait.compareTo(Duration.ofMillis(1)) < 0 || maxWait.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("warmup '" + name + "': maxWait must be 1 ms to 1 h, was " + maxWait);
            }
            if (normalLatency != null) {
                if (requests < 1) {
                    throw new IllegalArgumentException("warmup '" + name + "': requests must be at least 1, was " + requests);
                }
                if (normalLatency.compareTo(Duration.ofMillis(1)) < 0) {
                    throw new IllegalArgumentException("warmup '" + name + "': normalLatency must be at least 1 ms, was "
                            + normalLatency);
                }
            }
            return new Warmup(this);
        }
    }
}
