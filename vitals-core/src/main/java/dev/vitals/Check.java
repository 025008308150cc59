package dev.vitals;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A registered check: its name, the function that runs it, and its policy (groups,
 * criticality, mode, interval, timeout, max age, TTL and thresholds). Immutable; built with
 * {@link #builder(String, HealthCheck)} or {@link #asyncBuilder(String, AsyncHealthCheck)}.
 *
 * <pre>{@code
 * Check db = Check.builder("db", () -> ping(dataSource))
 *         .groups(Groups.READINESS)
 *         .interval(Duration.ofSeconds(5))
 *         .timeout(Duration.ofSeconds(1))
 *         .build();
 * }</pre>
 *
 * <p>Defaults (DESIGN.md section 5): groups {@code readiness}, critical, {@link Mode#SCHEDULED},
 * interval 10 s, timeout 2 s, maxAge 3 × interval, ttl 1 s, failureThreshold 1,
 * successThreshold 1, beforeFirstResult {@link #NO_RESULT_YET}. Names follow {@link Names}.
 */
public final class Check {
    /** Default interval of a scheduled check: 10 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
    /** Default timeout of an execution: 2 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** Default time an on-demand result is reused: 1 s. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(1);
    /** Default health read before a check's first result: UNKNOWN "no result yet". */
    public static final Health NO_RESULT_YET = Health.unknown("no result yet");
    /**
     * Longest interval, timeout, maxAge or ttl a check accepts: 365 days. The engine keeps times
     * in nanoseconds, which a {@code long} holds for about 292 years; three times this bound
     * (the default maxAge) still fits.
     */
    public static final Duration MAX_DURATION = Duration.ofDays(365);

    private final String name;
    private final HealthCheck blocking;
    private final AsyncHealthCheck async;
    private final Set<String> groups;
    private final boolean critical;
    private final Mode mode;
    private final Duration interval;
    private final Duration timeout;
    private final Duration maxAge;
    private final Duration ttl;
    private final int failureThreshold;
    private final int successThreshold;
    private final Health beforeFirstResult;
    private final boolean dependency;
    private final boolean inline;

    private Check(Builder b) {
        this.name = b.name;
        this.blocking = b.blocking;
        this.async = b.async;
        this.groups = Collections.unmodifiableSet(new LinkedHashSet<>(b.groups));
        this.critical = b.critical;
        this.mode = b.mode;
        this.interval = b.interval;
        this.timeout = b.timeout;
        this.maxAge = b.maxAge != null ? b.maxAge : b.interval.multipliedBy(3);
        this.ttl = b.ttl;
        this.failureThreshold = b.failureThreshold;
        this.successThreshold = b.successThreshold;
        this.beforeFirstResult = b.beforeFirstResult;
        this.dependency = b.dependency;
        this.inline = b.inline;
    }

    /**
     * Starts a registration for a blocking check.
     *
     * @param name unique name within the registry: not blank, letters, digits, {@code . _ -} only
     * @param check the check function
     * @return a builder with the defaults
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder builder(String name, HealthCheck check) {
        return new Builder(name, Objects.requireNonNull(check, "check"), null);
    }

    /**
     * Starts a registration for a non-blocking check.
     *
     * @param name unique name within the registry: not blank, letters, digits, {@code . _ -} only
     * @param check the check function
     * @return a builder with the defaults
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder asyncBuilder(String name, AsyncHealthCheck check) {
        return new Builder(name, null, Objects.requireNonNull(check, "check"));
    }

    /** @return the check's name */
    public String name() {
        return name;
    }

    /** @return the blocking function, if this is a blocking check */
    public Optional<HealthCheck> blockingCheck() {
        return Optional.ofNullable(blocking);
    }

    /** @return the non-blocking function, if this is an asynchronous check */
    public Optional<AsyncHealthCheck> asyncCheck() {
        return Optional.ofNullable(async);
    }

    /** @return the groups the check belongs to, in the order given; never empty */
    public Set<String> groups() {
        return groups;
    }

    /** @return whether a failure makes its groups DOWN (else only DEGRADED) */
    public boolean critical() {
        return critical;
    }

    /** @return the evaluation mode */
    public Mode mode() {
        return mode;
    }

    /** @return time between the starts of two scheduled executions; unused on demand */
    public Duration interval() {
        return interval;
    }

    /** @return longest time an execution may take before it reports DOWN "timed out" */
    public Duration timeout() {
        return timeout;
    }

    /** @return age after which a scheduled result reads as UNKNOWN "stale" */
    public Duration maxAge() {
        return maxAge;
    }

    /** @return how long an on-demand result is reused instead of running again */
    public Duration ttl() {
        return ttl;
    }

    /** @return consecutive failing results needed to turn a passing check failing */
    public int failureThreshold() {
        return failureThreshold;
    }

    /** @return consecutive passing results needed to turn a failing check passing */
    public int successThreshold() {
        return successThreshold;
    }

    /**
     * @return what reports show for this check until its first result is recorded; default
     *     {@link #NO_RESULT_YET}
     */
    public Health beforeFirstResult() {
        return beforeFirstResult;
    }

    /**
     * @return whether the check reaches a remote dependency (a database, a cache, a broker, a
     *     mail server); such a check does not belong in liveness (DESIGN.md P2), and the registry
     *     warns when one is put there
     */
    public boolean dependency() {
        return dependency;
    }

    /**
     * @return whether the check runs on the thread that starts its execution (Vitals'
     *     scheduler, or the caller of an on-demand evaluation) instead of a check thread; only
     *     for checks that read state already in memory and never block, such as Vitals' monitors
     */
    public boolean inline() {
        return inline;
    }

    @Override
    public String toString() {
        return "Check{" + name + ", groups=" + groups + ", " + mode + (critical ? ", critical" : ", non-critical")
                + (dependency ? ", dependency" : "") + (inline ? ", inline" : "")
                + ", interval=" + interval + ", timeout=" + timeout + ", maxAge=" + maxAge + ", ttl=" + ttl
                + ", failureThreshold=" + failureThreshold + ", successThreshold=" + successThreshold + '}';
    }

    /**
     * Builds a {@link Check}. Setters reject null at once; durations and thresholds are
     * validated in {@link #build()}, with messages naming the check and the field. Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private final HealthCheck blocking;
        private final AsyncHealthCheck async;
        private final LinkedHashSet<String> groups = new LinkedHashSet<>();
        private boolean critical = true;
        private Mode mode = Mode.SCHEDULED;
        private Duration interval = DEFAULT_INTERVAL;
        private Duration timeout = DEFAULT_TIMEOUT;
        private Duration maxAge;
        private Duration ttl = DEFAULT_TTL;
        private int failureThreshold = 1;
        private int successThreshold = 1;
        private Health beforeFirstResult = NO_RESULT_YET;
        private boolean dependency;
        private boolean inline;

        private Builder(String name, HealthCheck blocking, AsyncHealthCheck async) {
            Names.requireValid("check name", name);
            this.name = name;
            this.blocking = blocking;
            this.async = async;
        }

        /**
         * The groups this check belongs to (replacing earlier calls); default {@code readiness}.
         * Custom groups must be declared on the registry builder.
         *
         * @param first a group
         * @param more more groups
         * @return this builder
         * @throws NullPointerException if a group is null
         */
        public Builder groups(String first, String... more) {
            groups.clear();
            groups.add(Objects.requireNonNull(first, "group"));
            for (String g : more) {
                groups.add(Objects.requireNonNull(g, "group"));
            }
            return this;
        }

        /**
         * @param critical whether a failure makes the group DOWN (default); a non-critical
         *     failure only makes it DEGRADED
         * @return this builder
         */
        public Builder critical(boolean critical) {
            this.critical = critical;
            return this;
        }

        /**
         * @param mode {@link Mode#SCHEDULED} (default) or {@link Mode#ON_DEMAND}
         * @return this builder
         */
        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * @param interval time between scheduled executions, at least 1 ms; default 10 s
         * @return this builder
         */
        public Builder interval(Duration interval) {
            this.interval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * @param timeout longest time one execution may take, at least 1 ms; default 2 s
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @param maxAge age after which a scheduled result reads UNKNOWN "stale", at least the
         *     interval; default 3 × interval
         * @return this builder
         */
        public Builder maxAge(Duration maxAge) {
            this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
            return this;
        }

        /**
         * @param ttl time an on-demand result is reused, at least 1 ms; default 1 s
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            this.ttl = Objects.requireNonNull(ttl, "ttl");
            return this;
        }

        /**
         * @param failureThreshold consecutive failing results (DOWN or UNKNOWN) needed to turn a
         *     passing check failing, at least 1; default 1
         * @return this builder
         */
        public Builder failureThreshold(int failureThreshold) {
            this.failureThreshold = failureThreshold;
            return this;
        }

        /**
         * @param successThreshold consecutive passing results (UP or DEGRADED) needed to turn a
         *     failing check passing, at least 1; default 1
         * @return this builder
         */
        public Builder successThreshold(int successThreshold) {
            this.successThreshold = successThreshold;
            return this;
        }

        /**
         * What reports show for this check from registration until its first result is recorded
         * (an execution that returns or times out). Default {@link #NO_RESULT_YET}, which fails a
         * probe: nothing is known yet. Monitors' checks ({@code dev.vitals.monitor.Monitor#check()})
         * read {@code UP} "starting: no sample yet" instead, so that liveness never fails before
         * there is evidence of a stall (DESIGN.md P2). It never counts as a passed startup check:
         * automatic startup completion waits for real results.
         *
         * @param health the health to show, typically {@link Health#unknown(String)} or an UP
         *     health with a message
         * @return this builder
         * @throws NullPointerException if {@code health} is null
         */
        public Builder beforeFirstResult(Health health) {
            this.beforeFirstResult = Objects.requireNonNull(health, "health");
            return this;
        }

        /**
         * Tags the check as reaching a remote dependency (a database, cache, broker, mail or
         * search server). A dependency in the liveness group is accepted but logged once, as a
         * warning naming the check and the rule, when the registry starts, and marked in the
         * detailed report: a restart cannot cure a remote outage (DESIGN.md P2). Default
         * {@code false}; the Spring Boot adapter sets it for the indicators of known dependencies.
         *
         * @param dependency whether the check reaches a remote dependency
         * @return this builder
         */
        public Builder dependency(boolean dependency) {
            this.dependency = dependency;
            return this;
        }

        /**
         * Runs the check on the thread that starts its execution (Vitals' scheduler thread for
         * scheduled checks, the caller for an on-demand evaluation) rather than on a check thread,
         * so it never waits for a thread and costs none. Only for a check that reads state already
         * in memory and returns in microseconds, never blocking: a blocking inline check stalls
         * Vitals' scheduler, and with it every schedule and timeout. Vitals' monitors set it, and
         * so does the agent's readiness poll: an asynchronous check whose steps use non-blocking
         * sockets and are scheduled on the scheduler ({@link HealthRegistry#scheduler()}) while an
         * answer is pending. Default {@code false}.
         *
         * @param inline whether to run on the starting thread
         * @return this builder
         */
        public Builder inline(boolean inline) {
            this.inline = inline;
            return this;
        }

        /**
         * @return the immutable registration
         * @throws IllegalArgumentException naming the check and the field, when a duration is
         *     under 1 ms or over {@link Check#MAX_DURATION}, a threshold is under 1, or maxAge is
         *     shorter than interval
         */
        public Check build() {
            requireAtLeastOneMilli("interval", interval);
            requireAtLeastOneMilli("timeout", timeout);
            requireAtLeastOneMilli("ttl", ttl);
            if (maxAge != null) {
                requireAtLeastOneMilli("maxAge", maxAge);
                if (mode == Mode.SCHEDULED && maxAge.compareTo(interval) < 0) {
                    throw new IllegalArgumentException("check '" + name + "': maxAge must be at least interval ("
                            + interval + "), was " + maxAge);
                }
            }
            if (failureThreshold < 1) {
                throw new IllegalArgumentException("check '" + name + "': failureThreshold must be at least 1, was "
                        + failureThreshold);
            }
            if (successThreshold < 1) {
                throw new IllegalArgumentException("check '" + name + "': successThreshold must be at least 1, was "
                        + successThreshold);
            }
            if (groups.isEmpty()) {
                groups.add(Groups.READINESS);
            }
            for (String g : groups) {
                Names.requireValid("check '" + name + "': group", g);
            }
            return new Check(this);
        }

        private void requireAtLeastOneMilli(String field, Duration d) {
            if (d.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("check '" + name + "': " + field + " must be at least 1 ms, was " + d);
            }
            if (d.compareTo(MAX_DURATION) > 0) {
                throw new IllegalArgumentException("check '" + name + "': " + field + " must be at most 365 days ("
                        + MAX_DURATION + "), was " + d);
            }
        }
    }
}
