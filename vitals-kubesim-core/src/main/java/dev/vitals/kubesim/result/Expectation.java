package dev.vitals.kubesim.result;

import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.ProbeType;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code expect} line of a scenario, checked against a {@link SimulationResult} at the end.
 * Grammar (times like {@code 12s}, {@code 500ms}):
 * <pre>{@code
 * restarts == 0            kills <= 1            notReadySeconds < 10
 * ready at 12s             notReady at 3s
 * ready during 20s..40s    notReady during 10s..20s
 * liveness p99 < 500ms     p50 <= 100ms (all probes)     readiness max < 2s
 * readiness failures == 0  probe latency p99 < 1s
 * }</pre>
 * Comparison operators: {@code == != < <= > >=}. Immutable.
 */
public final class Expectation {
    private static final String OP = "(==|!=|<=|>=|<|>)";
    private static final Pattern COUNT = Pattern.compile("(restarts|kills|notReadySeconds)\\s*" + OP + "\\s*(\\S+)");
    private static final Pattern AT = Pattern.compile("(ready|notReady)\\s+at\\s+(\\S+)");
    private static final Pattern DURING = Pattern.compile("(ready|notReady)\\s+during\\s+(\\S+?)\\s*\\.\\.\\s*(\\S+)");
    private static final Pattern LATENCY = Pattern.compile(
            "(?:(startup|liveness|readiness)\\s+)?(?:probe\\s+)?(?:latency\\s+)?(p50|p99|max)\\s*" + OP + "\\s*(\\S+)");
    private static final Pattern FAILURES = Pattern.compile(
            "(?:(startup|liveness|readiness)\\s+)?(failures|errors|probes)\\s*" + OP + "\\s*(\\d+)");

    /** An expectation's grammar as data: each form's pattern and its reader, tried in order. */
    private record Form(Pattern pattern, java.util.function.BiFunction<Matcher, String, Expectation> read) {
    }

    private static final java.util.List<Form> FORMS = java.util.List.of(new Form(COUNT, Expectation::count),
            new Form(AT, Expectation::at), new Form(DURING, Expectation::during), new Form(LATENCY, Expectation::latency),
            new Form(FAILURES, Expectation::failures));

    private final String text;
    private final Function<SimulationResult, Check> check;

    private Expectation(String text, Function<SimulationResult, Check> check) {
        this.text = text;
        this.check = check;
    }

    /** The outcome of one expectation. */
    public record Check(String expectation, boolean passed, String actual) {
        /**
         * Validates the components.
         *
         * @param expectation the expectation as written, e.g. {@code restarts == 0}
         * @param passed whether the run met it
         * @param actual what the run showed, in the expectation's terms
         * @throws NullPointerException if a required component is null
         */
        public Check {
            Objects.requireNonNull(expectation, "expectation");
            Objects.requireNonNull(actual, "actual");
        }
    }

    /** @return the text as written */
    public String text() {
        return text;
    }

    /**
     * Checks this expectation against a run.
     *
     * @param r the simulation's result
     * @return whether it holds, with the actual value
     */
    public Check check(SimulationResult r) {
        return check.apply(r);
    }

    /**
     * @param line one expectation
     * @return the parsed expectation
     * @throws InvalidInputException when the line does not match the grammar
     */
    public static Expectation parse(String line) {
        String s = line.trim();
        for (Form f : FORMS) {
            Matcher m = f.pattern().matcher(s);
            if (m.matches()) {
                return f.read().apply(m, s);
            }
        }
        throw new InvalidInputException("cannot understand expect line '" + s + "'; use e.g. 'restarts == 0', "
                + "'ready at 12s', 'notReady during 10s..20s', 'liveness p99 < 500ms', 'readiness failures == 0'");
    }


    /** {@code restarts|kills|notReadySeconds OP N}. */
    private static Expectation count(Matcher m, String s) {
        String what = m.group(1);
        String op = m.group(2);
        double want = what.equals("notReadySeconds") ? Durations.seconds(Durations.parse(m.group(3)))
                : integer(m.group(3), s);
        return new Expectation(s, r -> {
            double actual = what.equals("restarts") ? r.restarts()
                    : what.equals("kills") ? r.kills() : r.notReadySeconds();
            return new Check(s, compare(actual, op, want), what + " = " + fmt(actual));
        });
    }

    /** {@code ready|notReady at T}. */
    private static Expectation at(Matcher m, String s) {
        boolean wantReady = m.group(1).equals("ready");
        double at = Durations.seconds(Durations.parse(m.group(2)));
        return new Expectation(s, r -> {
            boolean actual = r.readyAt(at);
            return new Check(s, actual == wantReady, (actual ? "ready" : "not ready") + " at " + fmt(at) + "s"
                    + r.readyIntervalsText());
        });
    }

    /** {@code ready|notReady during T1..T2}. */
    private static Expectation during(Matcher m, String s) {
        boolean wantReady = m.group(1).equals("ready");
        double from = Durations.seconds(Durations.parse(m.group(2)));
        double to = Durations.seconds(Durations.parse(m.group(3)));
        if (to < from) {
            throw new InvalidInputException("expect '" + s + "': the interval ends before it starts");
        }
        return new Expectation(s, r -> {
            double readyPart = r.readySecondsBetween(from, to);
            boolean ok = wantReady ? readyPart >= (to - from) - 1e-9 : readyPart <= 1e-9;
            return new Check(s, ok, "ready for " + fmt(readyPart) + "s of " + fmt(to - from) + "s"
                    + r.readyIntervalsText());
        });
    }

    /** {@code [PROBE] p50|p99|max OP DURATION}: a latency statistic; false when no probe ran. */
    private static Expectation latency(Matcher m, String s) {
        Optional<ProbeType> type = Optional.ofNullable(m.group(1)).map(ProbeType::fromLabel);
        String stat = m.group(2);
        String op = m.group(3);
        Duration bound = Durations.parse(m.group(4));
        return new Expectation(s, r -> {
            SimulationResult.ProbeStats st = type.map(r::stats).orElse(r.allStats());
            double ms = stat.equals("p50") ? st.p50Ms() : stat.equals("p99") ? st.p99Ms() : st.maxMs();
            boolean ok = st.count() > 0 && compare(ms, op, bound.toNanos() / 1e6);
            return new Check(s, ok, st.count() == 0 ? "no probes ran" : stat + " = " + fmt(ms) + " ms over "
                    + st.count() + " probes");
        });
    }

    /** {@code [PROBE] failures|errors|probes OP N}. */
    private static Expectation failures(Matcher m, String s) {
        Optional<ProbeType> type = Optional.ofNullable(m.group(1)).map(ProbeType::fromLabel);
        String what = m.group(2);
        String op = m.group(3);
        double want = integer(m.group(4), s);
        return new Expectation(s, r -> {
            SimulationResult.ProbeStats st = type.map(r::stats).orElse(r.allStats());
            double actual = what.equals("failures") ? st.failures() : what.equals("errors") ? st.errors() : st.count();
            return new Check(s, compare(actual, op, want), what + " = " + fmt(actual));
        });
    }

    private static int integer(String v, String line) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new InvalidInputException("expect '" + line + "': '" + v + "' is not a whole number");
        }
    }

    static boolean compare(double a, String op, double b) {
        switch (op) {
            case "==":
                return Math.abs(a - b) < 1e-9;
            case "!=":
                return Math.abs(a - b) >= 1e-9;
            case "<":
                return a < b;
            case "<=":
                return a <= b + 1e-9;
            case ">":
                return a > b;
            default:
                return a >= b - 1e-9;
        }
    }

    /**
     * Formats a number for reports: a whole number without decimals, else two decimals.
     *
     * @param v the number
     * @return e.g. {@code 3} or {@code 2.50}
     */
    public static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }

    @Override
    public String toString() {
        return text;
    }
}
