package dev.vitals.kubesim.replay;

import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.Interval;
import dev.vitals.kubesim.result.SimulationResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One finished run: a case under one wiring. Holds the simulator's {@link SimulationResult}
 * (kubelet events, restarts, Ready intervals, probe statistics), the replay's own action
 * notes and windows, and the expectation checks. Immutable; thread-safe.
 */
public final class RunRecord {
    private final ReplayCase replayCase;
    private final Wiring wiring;
    private final SimulationResult result;
    private final PodSpec pod;
    private final List<Note> notes;
    private final Map<String, double[]> windows;
    private final List<String> command;
    private final List<Expectation.Check> checks;
    private final List<Margin> measured;

    /** A run's outcome, judged with its margins. */
    public enum Verdict {
        /** Every check held and every margin was at least its requirement. */
        PASS,
        /** A check did not hold although every margin was there: a real failure. */
        FAIL,
        /** A margin was below its requirement (or the case was skipped): neither pass nor fail. */
        SKIP
    }

    /**
     * A replay note: something the replay did, at {@code t} seconds of the run.
     *
     * @param t seconds since the run started (the kubelet's time base)
     * @param text what happened
     */
    public record Note(double t, String text) {
        /**
         * Validates the components.
         *
         * @param t seconds since the run started (the kubelet's time base)
         * @param text what happened
         * @throws NullPointerException if a required component is null
         */
        public Note {
            Objects.requireNonNull(text, "text");
        }
    }

    RunRecord(ReplayCase replayCase, Wiring wiring, SimulationResult result, PodSpec pod, List<Note> notes,
            Map<String, double[]> windows, List<String> command) {
        this.replayCase = Objects.requireNonNull(replayCase, "replayCase");
        this.wiring = Objects.requireNonNull(wiring, "wiring");
        this.result = Objects.requireNonNull(result, "result");
        this.pod = Objects.requireNonNull(pod, "pod");
        List<Note> sorted = new ArrayList<>(notes);
        sorted.sort((a, b) -> Double.compare(a.t(), b.t()));
        this.notes = List.copyOf(sorted);
        Map<String, double[]> w = new LinkedHashMap<>();
        windows.forEach((k, v) -> w.put(k, v.clone()));
        this.windows = Collections.unmodifiableMap(w);
        this.command = List.copyOf(command);
        List<Expectation.Check> c = new ArrayList<>();
        for (ReplayStep a : replayCase.steps()) {
            String text = "the " + a.kind() + " ran";
            double[] at = w.get(a.kind());
            double latest = seconds(result.duration()) - a.observe().toNanos() / 1e9;
            c.add(new Expectation.Check(text, at != null && at[0] <= latest, at == null
                    ? "it did not run (the service never became Ready?)"
                    : String.format(java.util.Locale.ROOT, "at %.1fs%s", at[0], at[0] <= latest ? ""
                            : ", too late to observe (the run ends at " + seconds(result.duration()) + "s)")));
        }
        OptionalDouble firstAction = w.values().stream().mapToDouble(v -> v[0]).min();
        if (firstAction.isPresent()) {
            long early = result.killsAt().stream().filter(k -> seconds(k) < firstAction.getAsDouble()).count();
            c.add(new Expectation.Check("no kill before the first action", early == 0, early == 0 ? "none"
                    : early + " kill(s) before " + String.format(java.util.Locale.ROOT, "%.1fs", firstAction.getAsDouble())
                            + ": a start-up problem, not the fault under test"));
        }
        for (RunExpectation e : replayCase.expectations(wiring)) {
            c.add(e.check(this));
        }
        this.checks = List.copyOf(c);
        this.measured = measure(replayCase, wiring, result);
    }

    /** The margins that only the run can tell: its own boot against the budgets sized for it. */
    private static List<Margin> measure(ReplayCase c, Wiring w, SimulationResult result) {
        List<Margin> m = new ArrayList<>();
        double end = seconds(result.duration());
        c.startupBudgetSeconds(w).ifPresent(budget -> {
            OptionalDouble started = result.events().stream()
                    .filter(e -> e.type() == SimEvent.Type.STARTED && e.instance() == 1).mapToDouble(e -> seconds(e.at())).findFirst();
            // never started in its first life: the budget did not cover the boot at all
            double boot = started.isPresent() ? started.getAsDouble() : Math.max(budget, end) + 1;
            m.add(new Margin("startup budget vs this run's boot", budget, Math.max(boot, 0.001), Margin.TWICE, true));
        });
        if (c.readyAllowanceSeconds() > 0) {
            OptionalDouble ready = result.events().stream().filter(e -> e.type() == SimEvent.Type.READY)
                    .mapToDouble(e -> seconds(e.at())).findFirst();
            double t = ready.isPresent() ? ready.getAsDouble() : end + 1;
            // the allowance is already twice the slowest calibrated boot: a run must only fit in it
            m.add(new Margin("Ready allowance vs this run's first Ready", c.readyAllowanceSeconds(), Math.max(t, 0.001), 1, true));
        }
        return List.copyOf(m);
    }

    /** @return the case */
    public ReplayCase replayCase() {
        return replayCase;
    }

    /** @return the wiring */
    public Wiring wiring() {
        return wiring;
    }

    /** @return the simulator's result */
    public SimulationResult result() {
        return result;
    }

    /** @return the pod the kubelet model probed */
    public PodSpec pod() {
        return pod;
    }

    /** @return what the replay did, in time order */
    public List<Note> notes() {
        return notes;
    }

    /** @return the demo command line */
    public List<String> command() {
        return command;
    }

    /**
     * @param kind an action kind
     * @return {@code [start, end]} seconds of that action, if it ran (end = start for instant ones)
     */
    public Optional<double[]> window(String kind) {
        double[] w = windows.get(kind);
        return w == null ? Optional.empty() : Optional.of(w.clone());
    }

    /** @return seconds into the run when the Ready condition first became true, if it did */
    public OptionalDouble firstReadySeconds() {
        for (SimEvent e : result.events()) {
            if (e.type() == SimEvent.Type.READY) {
                return OptionalDouble.of(seconds(e.at()));
            }
        }
        return OptionalDouble.empty();
    }

    /** @return container restarts (restartCount at the end) */
    public int restarts() {
        return result.restarts();
    }

    /**
     * @return seconds with the Ready condition false from the first Ready to the end (the whole
     *         run when it never became Ready): what the faults cost, without the JVM's boot time,
     *         which varies with the machine's load
     */
    public double notReadySeconds() {
        double from = firstReadySeconds().orElse(0);
        return Math.max(0, seconds(result.duration()) - from - seconds(result.readyWithin(new Interval(duration(from), result.duration()))));
    }

    /** @return seconds with the Ready condition false over the whole run, start-up included */
    public double notReadyTotalSeconds() {
        return seconds(result.notReady());
    }

    /**
     * @return liveness and readiness evaluations counted as Failure (startup probe failures,
     *         expected while a service starts, are left out)
     */
    public int probeFailures() {
        return result.stats(ProbeType.LIVENESS).failures() + result.stats(ProbeType.READINESS).failures();
    }

    /** @return 99th percentile latency of the liveness probe, ms (timeouts count as their timeout) */
    public double livenessP99Ms() {
        return result.stats(ProbeType.LIVENESS).p99Ms();
    }

    /** @return each check: the actions ran, then the case's expectations for this wiring */
    public List<Expectation.Check> checks() {
        return checks;
    }

    /** @return whether every check holds */
    public boolean passed() {
        return checks.stream().allMatch(Expectation.Check::passed);
    }

    /** @return the margins measured in this run (its boot against the startup budget and the Ready allowance) */
    List<Margin> measuredMargins() {
        return measured;
    }

    /**
     * @return why this run cannot be judged, if so: the case was skipped, or a predicted or
     *         measured margin was below its requirement (the outcome would be luck)
     */
    public Optional<String> inconclusive() {
        if (replayCase.skip().isPresent()) {
            return replayCase.skip();
        }
        for (Margin m : replayCase.margins()) {
            if (!m.holds()) {
                return Optional.of("margin too small: " + m.describe());
            }
        }
        for (Margin m : measured) {
            if (!m.holds()) {
                return Optional.of("margin too small in this run: " + m.describe());
            }
        }
        return Optional.empty();
    }

    /** @return SKIP when {@link #inconclusive()}, else PASS or FAIL by the checks */
    public Verdict verdict() {
        if (inconclusive().isPresent()) {
            return Verdict.SKIP;
        }
        return passed() ? Verdict.PASS : Verdict.FAIL;
    }

    /** The result's API speaks {@code Duration}; the replay's reports print seconds: converted here, at the edge. */
    static double seconds(Duration d) {
        return Durations.seconds(d);
    }

    /** @return {@code s} seconds as a duration (to the nanosecond) */
    static Duration duration(double s) {
        return Duration.ofNanos(Math.round(s * 1e9));
    }
}
