package dev.vitals.kubesim.replay;

import dev.vitals.kubesim.fault.LoadGenerator;
import dev.vitals.kubesim.scenario.Action;
import dev.vitals.kubesim.scenario.ActionRunner;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * One timed step of a replay case, made of the simulator's one action type ({@link Action}, performed
 * by {@link ActionRunner}): {@code start} runs {@code after} the first Ready condition of the run (so a
 * slow JVM start on a busy machine does not shift the fault into the start-up; naive and Vitals runs
 * get exactly the same steps), {@code end} runs {@code length} later. A step's loads aim at the demo's
 * application port ({@link LoadGenerator#APP_PORT}), picked per run. Immutable.
 *
 * @param kind the step's kind, as used in the JSON report: load, burst, db-outage, freeze, post
 * @param description a one-line description for the timeline and the report
 * @param after delay after the first Ready (≥ 0)
 * @param trigger when {@code after} counts from
 * @param start the actions that begin the step
 * @param length how long the step lasts (its window in the report; zero for a single shot)
 * @param end the actions that end it, {@code length} after {@code start}
 * @param observe how much of the run must remain after the step starts for its effect to show (a run
 *        where it started later is judged "too late to observe")
 */
public record ReplayStep(String kind, String description, Duration after, Trigger trigger, List<Action> start,
        Duration length, List<Action> end, Duration observe) {

    /** When a step's {@code after} counts from. */
    public enum Trigger {
        /** {@code after} the first Ready. */
        READY,
        /**
         * 300 ms after the first liveness probe that completes {@code after} the first Ready: the
         * incident's burst lands between two probes, as it did in production.
         */
        NEXT_LIVENESS_PROBE
    }

    /**
     * Validates the components and copies the lists (unmodifiable).
     *
     * @param kind the step's kind, as used in the JSON report
     * @param description a one-line description
     * @param after delay after the first Ready (≥ 0)
     * @param trigger when {@code after} counts from
     * @param start the actions that begin the step (at least one)
     * @param length how long the step lasts (≥ 0)
     * @param end the actions that end it
     * @param observe how much of the run must remain after the step starts
     * @throws IllegalArgumentException if a component is outside its documented range
     * @throws NullPointerException if a required component is null
     */
    public ReplayStep {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(observe, "observe");
        nonNegative(after, "after");
        nonNegative(length, "length");
        start = List.copyOf(start);
        end = List.copyOf(end);
        if (start.isEmpty()) {
            throw new IllegalArgumentException(kind + ": a step needs an action");
        }
    }

    /**
     * Sustained export load: {@code clients} closed-loop clients each send {@code GET /reports/export}
     * again as soon as the previous one ends, for {@code sustain}; requests in flight at the end run
     * on (until the run ends).
     *
     * @param after delay after the first Ready
     * @param clients concurrent clients, 1–1000
     * @param sustain how long new requests are sent, &gt; 0
     * @param requestTimeout per-request timeout, &gt; 0
     * @return the step
     * @throws IllegalArgumentException if a component is outside its documented range
     */
    public static ReplayStep load(Duration after, int clients, Duration sustain, Duration requestTimeout) {
        List<String> paths = IntStream.rangeClosed(1, 100).mapToObj(n -> "/reports/export?costCenter=CC-" + n).toList();
        LoadGenerator.Sustained spec = new LoadGenerator.Sustained(clients, paths, LoadGenerator.APP_PORT, sustain, requestTimeout);
        return new ReplayStep("load", String.format(Locale.ROOT, "export load: %d clients re-sending for %ds", clients,
                sustain.toSeconds()), after, Trigger.READY, List.of(new Action.SustainedLoad(spec)), sustain, List.of(),
                Duration.ofSeconds(10));
    }

    /**
     * The incident's burst: {@code count} exports at {@code concurrency}, 300 ms after the first
     * liveness probe {@code after} the first Ready.
     *
     * @param after delay after the first Ready before the burst waits for a liveness probe
     * @param count calls, 1–100000
     * @param concurrency calls in flight at most, 1–1000
     * @param requestTimeout per-request timeout, &gt; 0
     * @return the step
     * @throws IllegalArgumentException if a component is outside its documented range
     */
    public static ReplayStep burst(Duration after, int count, int concurrency, Duration requestTimeout) {
        if (count < 1 || count > 100_000 || concurrency < 1 || concurrency > 1000) {
            throw new IllegalArgumentException("burst: count must be 1-100000 and concurrency 1-1000, was "
                    + count + " and " + concurrency);
        }
        positive(requestTimeout, "requestTimeout");
        Action load = new Action.Load(new LoadGenerator.Spec(count, concurrency, "GET", "/reports/export?costCenter=CC-7",
                LoadGenerator.APP_PORT, requestTimeout));
        return new ReplayStep("burst", "export burst: " + count + " calls at concurrency " + concurrency, after,
                Trigger.NEXT_LIVENESS_PROBE, List.of(load), Duration.ZERO, List.of(), Duration.ofSeconds(8));
    }

    /**
     * The database cut at the fault proxy {@code db} between the demo and its H2 port: the proxy
     * refuses new connections and resets open ones ({@code refuse} + {@code cut}) for {@code length},
     * then heals.
     *
     * @param after delay after the first Ready
     * @param length outage length, &gt; 0
     * @return the step
     * @throws IllegalArgumentException if a component is outside its documented range
     */
    public static ReplayStep dbOutage(Duration after, Duration length) {
        positive(length, "length");
        return new ReplayStep("db-outage", "database cut for " + length.toSeconds() + "s", after, Trigger.READY,
                List.of(new Action.Fault("db", "refuse", Duration.ZERO), new Action.Fault("db", "cut", Duration.ZERO)),
                length, List.of(new Action.Heal("db")),
                length.compareTo(Duration.ofSeconds(10)) < 0 ? length : Duration.ofSeconds(10));
    }

    /**
     * The whole process frozen with SIGSTOP for {@code length}, then SIGCONT.
     *
     * @param after delay after the first Ready
     * @param length freeze length, &gt; 0
     * @return the step
     * @throws IllegalArgumentException if a component is outside its documented range
     */
    public static ReplayStep freeze(Duration after, Duration length) {
        positive(length, "length");
        return new ReplayStep("freeze", "process frozen (SIGSTOP) for " + seconds(length) + "s", after, Trigger.READY,
                List.of(new Action.Pause()), length, List.of(new Action.Resume()), length.plusSeconds(3));
    }

    /**
     * One {@code POST} to the application port, e.g. {@code /chaos/deadlock-workers}.
     *
     * @param after delay after the first Ready
     * @param path request path
     * @return the step
     * @throws IllegalArgumentException if a component is outside its documented range
     * @throws NullPointerException if a required component is null
     */
    public static ReplayStep post(Duration after, String path) {
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("post: path must start with '/', was '" + path + "'");
        }
        return new ReplayStep("post", "POST " + path, after, Trigger.READY,
                List.of(new Action.Load(new LoadGenerator.Spec(1, 1, "POST", path, LoadGenerator.APP_PORT, Duration.ofSeconds(15)))),
                Duration.ZERO, List.of(), Duration.ofSeconds(6));
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
