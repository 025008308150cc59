package dev.vitals.kubesim.replay;

import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * What one run must show, checked against its {@link RunRecord} at the end. Unlike a scenario
 * file's {@link Expectation}, a replay expectation may refer to the times its actions really
 * ran (e.g. "not ready during the database outage"), which are known only after the run.
 * Immutable.
 */
final class RunExpectation {
    private final String text;
    private final Function<RunRecord, Expectation.Check> check;

    private RunExpectation(String text, Function<RunRecord, Expectation.Check> check) {
        this.text = text;
        this.check = check;
    }

    /** @return the expectation in words, e.g. {@code restarts >= 1} */
    public String text() {
        return text;
    }

    /**
     * @param run the finished run
     * @return whether it holds, with the actual value
     */
    public Expectation.Check check(RunRecord run) {
        return check.apply(run);
    }

    /**
     * An expectation on the container's restarts.
     *
     * @param op the comparison: {@code ==}, {@code !=}, {@code <}, {@code <=}, {@code >} or {@code >=}
     * @param n the count to compare with, ≥ 0
     * @return "restarts {@code op} {@code n}" (restartCount at the end, kubelet R45)
     */
    public static RunExpectation restarts(String op, int n) {
        return count("restarts", op, n, r -> r.restarts());
    }

    /**
     * An expectation on the kills by probes.
     *
     * @param op the comparison: {@code ==}, {@code !=}, {@code <}, {@code <=}, {@code >} or {@code >=}
     * @param n the count to compare with, ≥ 0
     * @return "kills {@code op} {@code n}" (liveness or startup Failure verdicts that killed the container)
     */
    public static RunExpectation kills(String op, int n) {
        return count("kills", op, n, SimulationResult::kills);
    }

    private static RunExpectation count(String what, String op, int n, Function<SimulationResult, Integer> f) {
        String text = what + " " + op + " " + n;
        Expectation.parse("restarts " + op + " " + n); // validates the operator
        return new RunExpectation(text, run -> {
            int actual = f.apply(run.result());
            return new Expectation.Check(text, compare(actual, op, n), what + " = " + actual);
        });
    }

    private static boolean compare(int a, String op, int b) {
        switch (op) {
            case "==":
                return a == b;
            case "!=":
                return a != b;
            case "<":
                return a < b;
            case "<=":
                return a <= b;
            case ">":
                return a > b;
            default:
                return a >= b;
        }
    }

    /** @return "crash-loops": the kubelet held a restart back in CrashLoopBackOff at least once */
    public static RunExpectation crashLoopBackOff() {
        String text = "enters CrashLoopBackOff";
        return new RunExpectation(text, run -> {
            long n = run.result().events().stream().filter(e -> e.type() == SimEvent.Type.BACKOFF).count();
            return new Expectation.Check(text, n > 0, n + " back-off waits");
        });
    }

    /**
     * @param kind an action kind ({@link ReplayStep#kind()})
     * @return "not ready during the action": some of the action's window had Ready false
     */
    public static RunExpectation notReadyDuring(String kind) {
        Objects.requireNonNull(kind, "kind");
        String text = "not ready during the " + kind;
        return new RunExpectation(text, run -> run.window(kind).map(w -> {
            double ready = RunRecord.seconds(run.result().readyWithin(new dev.vitals.kubesim.result.Interval(RunRecord.duration(w[0]), RunRecord.duration(w[1]))));
            double span = w[1] - w[0];
            return new Expectation.Check(text, ready < span - 0.5,
                    String.format(Locale.ROOT, "ready for %.1fs of the %.1fs from %.1fs to %.1fs", ready, span, w[0], w[1]));
        }).orElse(new Expectation.Check(text, false, "the " + kind + " did not run")));
    }

    /**
     * @param factor the headroom required, ≥ 1 (replay uses 2)
     * @return "liveness p99 at most timeout / factor": the probe kept {@code factor}× headroom
     *         below its {@code timeoutSeconds} (a run that did not restart only because the
     *         probe answered just in time passed by luck, not by design)
     */
    public static RunExpectation livenessHeadroom(double factor) {
        if (!(factor >= 1)) {
            throw new IllegalArgumentException("headroom factor must be >= 1, was " + factor);
        }
        String text = String.format(Locale.ROOT, "liveness p99 <= timeout / %.0f", factor);
        return new RunExpectation(text, run -> {
            double timeoutMs = run.pod().probe(ProbeType.LIVENESS).map(p -> p.timeoutSeconds() * 1000.0).orElse(0.0);
            double p99 = run.livenessP99Ms();
            return new Expectation.Check(text, timeoutMs > 0 && p99 <= timeoutMs / factor,
                    String.format(Locale.ROOT, "p99 %.0f ms of a %.0f ms timeout", p99, timeoutMs));
        });
    }

    /** @return "ready at the end": the Ready condition true when the run ended */
    public static RunExpectation readyAtEnd() {
        String text = "ready at the end";
        return new RunExpectation(text, run -> {
            double end = RunRecord.seconds(run.result().duration());
            boolean ready = run.result().readyAt(RunRecord.duration(end - 0.01));
            return new Expectation.Check(text, ready, String.format(Locale.ROOT, "%s at %.1fs", ready ? "ready" : "not ready", end));
        });
    }

    @Override
    public String toString() {
        return text;
    }
}
