package dev.vitals.kubesim.replay;


import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * One timed thing a replay does to the demo. Every action is timed from the moment the Ready
 * condition first became true in that run, so a slow JVM start on a busy machine does not
 * shift the fault into the start-up; naive and Vitals runs get exactly the same actions.
 * Immutable.
 */
public sealed interface ReplayAction {

    /** @return delay after the first Ready condition (≥ 0) */
    Duration after();

    /** @return a one-line description for the timeline and the report */
    String describe();

    /** @return the action's kind, as used in the JSON report: load, burst, db-outage, freeze, post */
    String kind();

    /**
     * @return how much of the run must remain after the action starts for its effect to show
     *         (a run where it started later is judged "too late to observe")
     */
    Duration observe();

    /**
     * Sustained export load: {@code clients} closed-loop clients each send
     * {@code GET /reports/export} again as soon as the previous one ends, for {@code sustain};
     * requests in flight at the end run on (until the run ends).
     *
     * @param after delay after the first Ready
     * @param clients concurrent clients, 1–1000
     * @param sustain how long new requests are sent, &gt; 0
     * @param requestTimeout per-request timeout, &gt; 0
     */
    record Load(Duration after, int clients, Duration sustain, Duration requestTimeout) implements ReplayAction {
        /**
         * Validates the components.
         *
         * @param after delay after the first Ready
         * @param clients concurrent clients, 1–1000
         * @param sustain how long new requests are sent, &gt; 0
         * @param requestTimeout per-request timeout, &gt; 0
         * @throws IllegalArgumentException if a component is outside its documented range
         */
        public Load {
            nonNegative(after, "after");
            positive(sustain, "sustain");
            positive(requestTimeout, "requestTimeout");
            if (clients < 1 || clients > 1000) {
                throw new IllegalArgumentException("load: clients must be 1-1000, was " + clients);
            }
        }

        @Override
        public String describe() {
            return String.format(Locale.ROOT, "export load: %d clients re-sending for %ds", clients, sustain.toSeconds());
        }

        @Override
        public String kind() {
            return "load";
        }

        @Override
        public Duration observe() {
            return Duration.ofSeconds(10);
        }
    }

    /**
     * A burst of {@code count} exports, at most {@code concurrency} at a time (the simulator's
     * {@link dev.vitals.kubesim.fault.LoadGenerator}); it starts {@code 300 ms} after the first liveness
     * probe that completes at least {@code after} past the first Ready, so the probe phase, and
     * with it the figures, repeat from run to run.
     *
     * @param after delay after the first Ready before the burst may start
     * @param count exports in total, 1–100000
     * @param concurrency exports in flight at most, 1–1000
     * @param requestTimeout per-request timeout, &gt; 0
     */
    record Burst(Duration after, int count, int concurrency, Duration requestTimeout) implements ReplayAction {
        /**
         * Validates the components.
         *
         * @param after delay after the first Ready before the burst may start
         * @param count exports in total, 1–100000
         * @param concurrency exports in flight at most, 1–1000
         * @param requestTimeout per-request timeout, &gt; 0
         * @throws IllegalArgumentException if a component is outside its documented range
         */
        public Burst {
            nonNegative(after, "after");
            positive(requestTimeout, "requestTimeout");
            if (count < 1 || count > 100_000 || concurrency < 1 || concurrency > 1000) {
                throw new IllegalArgumentException("burst: count must be 1-100000 and concurrency 1-1000, was "
                        + count + " and " + concurrency);
            }
        }

        @Override
        public String describe() {
            return "export burst: " + count + " calls at concurrency " + concurrency;
        }

        @Override
        public String kind() {
            return "burst";
        }

        @Override
        public Duration observe() {
            return Duration.ofSeconds(8);
        }
    }

    /**
     * The database cut at the fault proxy between the demo and its H2 port: the proxy refuses
     * new connections and resets open ones ({@code refuse} + {@code cut}) for {@code length},
     * then heals.
     *
     * @param after delay after the first Ready
     * @param length outage length, &gt; 0
     */
    record DbOutage(Duration after, Duration length) implements ReplayAction {
        /**
         * Validates the components.
         *
         * @param after delay after the first Ready
         * @param length outage length, &gt; 0
         * @throws IllegalArgumentException if a component is outside its documented range
         */
        public DbOutage {
            nonNegative(after, "after");
            positive(length, "length");
        }

        @Override
        public String describe() {
            return "database cut for " + length.toSeconds() + "s";
        }

        @Override
        public String kind() {
            return "db-outage";
        }

        @Override
        public Duration observe() {
            return length.compareTo(Duration.ofSeconds(10)) < 0 ? length : Duration.ofSeconds(10);
        }
    }

    /**
     * The whole process frozen with SIGSTOP for {@code length}, then SIGCONT (the simulator's
     * {@code pause}/{@code resume}).
     *
     * @param after delay after the first Ready
     * @param length freeze length, &gt; 0
     */
    record Freeze(Duration after, Duration length) implements ReplayAction {
        /**
         * Validates the components.
         *
         * @param after delay after the first Ready
         * @param length freeze length, &gt; 0
         * @throws IllegalArgumentException if a component is outside its documented range
         */
        public Freeze {
            nonNegative(after, "after");
            positive(length, "length");
        }

        @Override
        public String describe() {
            return "process frozen (SIGSTOP) for " + seconds(length) + "s";
        }

        @Override
        public String kind() {
            return "freeze";
        }

        @Override
        public Duration observe() {
            return length.plusSeconds(3);
        }
    }

    /**
     * One {@code POST} to the application port, e.g. {@code /chaos/deadlock-workers}.
     *
     * @param after delay after the first Ready
     * @param path request path
     */
    record Post(Duration after, String path) implements ReplayAction {
        /**
         * Validates the components.
         *
         * @param after delay after the first Ready
         * @param path request path
         * @throws IllegalArgumentException if a component is outside its documented range
         * @throws NullPointerException if a required component is null
         */
        public Post {
            nonNegative(after, "after");
            Objects.requireNonNull(path, "path");
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("post: path must start with '/', was '" + path + "'");
            }
        }

        @Override
        public String describe() {
            return "POST " + path;
        }

        @Override
        public String kind() {
            return "post";
        }

        @Override
        public Duration observe() {
            return Duration.ofSeconds(6);
        }
    }

    private static void nonNegative(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must be ≥ 0, was " + d);
        }
    }

    private static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + d);
        }
    }

    /** @return whole seconds as {@code 2}, others as {@code 1.5} */
    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds()) : String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }
}
