package dev.vitals.kubesim.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.Durations;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code vitals fleet FILE --sweep PATH=FROM..TO[:STEPS]}: where does it break? One or two
 * values of a fleet file are swept over a range; at each point the fleet runs as an ensemble
 * ({@link FleetEnsemble}: the same seeds at every point) and each expectation is judged per
 * point; {@link Result#boundaries()} says where each one flips.
 *
 * <p><b>How a value is changed.</b> {@code PATH} is a path into the file's YAML tree, with the
 * file's own field names: {@code replicas}, {@code probes.liveness.timeoutSeconds},
 * {@code clients[0].concurrency}, or {@code clients.concurrency} (every element of the list that
 * has the field). The value is replaced in the parsed tree and the spec is then built by
 * {@link FleetSpecReader} as from the file, so a sweep works on any field the reader knows,
 * including fields added after this class, and every point is validated as the file is (a
 * point outside a field's range is the reader's one-line message, before anything runs). A field
 * (or section) the file does not write is added, so the reader then rejects a misspelt one as
 * unknown; a list element is never added.
 *
 * <p><b>Values.</b> The kind follows the file's value and the range's syntax: a whole number
 * ({@code 10..60}), a decimal ({@code 0.5..3}), a duration ({@code 500ms..5s}, where the file
 * writes one) or a percentage ({@code 0%..50%}, where the file writes one). {@code STEPS} is the
 * number of points, 2–{@value #MAX_STEPS}, evenly spaced, both ends included; whole numbers are
 * rounded (duplicates dropped) and durations kept to the millisecond. Default: 11 points, or
 * every whole number when the range holds at most 21 of them.
 *
 * <p>Immutable; thread-safe. {@link #run} runs the points' ensembles on a pool of threads.
 */
public final class FleetSweep {
    /** The most points along one axis. */
    public static final int MAX_STEPS = 100;
    /** The most runs of a sweep in all (points × runs per point): every run's result is kept. */
    public static final int MAX_TOTAL_RUNS = 5_000;
    private static final Pattern OPTION = Pattern.compile("([A-Za-z][A-Za-z0-9_\\-]*(?:\\[\\d{1,6}\\])?(?:\\.[A-Za-z][A-Za-z0-9_\\-]*(?:\\[\\d{1,6}\\])?)*)"
            + "=([^.:][^:]*?)\\.\\.([^:]+?)(?::(\\d{1,9}))?");
    private static final Pattern SEGMENT = Pattern.compile("([A-Za-z][A-Za-z0-9_\\-]*)(?:\\[(\\d{1,6})\\])?");
    private static final Pattern NUMBER = Pattern.compile("-?\\d{1,15}(\\.\\d{1,9})?");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12}(?:\\.\\d{1,9})?)(ms|s|m|h)");
    private static final Pattern PERCENT = Pattern.compile("(\\d{1,9}(?:\\.\\d{1,9})?)%");

    private final String source;
    private final List<Axis> axes;
    private final List<Point> points;

    private FleetSweep(String source, List<Axis> axes, List<Point> points) {
        this.source = source;
        this.axes = List.copyOf(axes);
        this.points = List.copyOf(points);
    }

    /** What a swept value is. */
    public enum Kind {
        /** A whole number, written as a YAML integer. */
        INTEGER,
        /** A decimal number. */
        DECIMAL,
        /** A duration, written as milliseconds ({@code 2500ms}); values held in milliseconds. */
        DURATION,
        /** A percentage such as a rollout's {@code maxSurge: 25%}, written {@code N%}. */
        PERCENT
    }

    /**
     * One swept value.
     *
     * @param path the path as given, e.g. {@code clients.concurrency}
     * @param kind what the value is
     * @param values the points in increasing order (milliseconds for a duration, percent for a percentage)
     */
    public record Axis(String path, Kind kind, List<Double> values) {
        /**
         * Copies the values (unmodifiable).
         *
         * @param path the path as given
         * @param kind what the value is
         * @param values the points in increasing order
         */
        public Axis {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(kind, "kind");
            values = List.copyOf(values);
        }

        /**
         * @param v one of the values
         * @return it as the file would write it: {@code 40}, {@code 0.5}, {@code 1500ms}, {@code 25%}
         */
        public String format(double v) {
            switch (kind) {
                case DURATION:
                    return plain(v) + "ms";
                case PERCENT:
                    return plain(v) + "%";
                default:
                    return plain(v);
            }
        }

        /** @return the value written into the YAML tree */
        JsonNode node(double v) {
            switch (kind) {
                case INTEGER:
                    return LongNode.valueOf(Math.round(v));
                case DECIMAL:
                    return DoubleNode.valueOf(v);
                default:
                    return TextNode.valueOf(format(v));
            }
        }
    }

    /**
     * One point of the sweep.
     *
     * @param values one value per axis, in axis order
     * @param spec the fleet at that point
     */
    public record Point(List<Double> values, FleetSpec spec) {
        /**
         * Copies the values (unmodifiable).
         *
         * @param values one value per axis
         * @param spec the fleet at that point
         */
        public Point {
            values = List.copyOf(values);
            Objects.requireNonNull(spec, "spec");
        }
    }

    /** How an expectation fared at one point. */
    public enum State {
        /** It held in every run. */
        HOLDS,
        /** It held in some runs, not in others. */
        UNSTABLE,
        /** It held in no run. */
        FAILS;

        /** @return {@code holds}, {@code unstable}, {@code fails} */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Reads {@code file}, resolves each {@code --sweep} option against its tree and builds every
     * point's spec, so that any bad value is reported before anything runs.
     *
     * @param file the fleet file
     * @param options one or two {@code PATH=FROM..TO[:STEPS]}
     * @param adjust applied to every point's spec after it is read (the command line's overrides)
     * @return the sweep, not yet run
     * @throws InvalidInputException one line: a bad option, path, range or step count, or a point the reader rejects
     */
    public static FleetSweep plan(Path file, List<String> options, UnaryOperator<FleetSpec> adjust) {
        return plan(FleetSpecReader.tree(file), file.toString(), options, adjust);
    }

    /**
     * As {@link #plan(Path, List, UnaryOperator)}, from a YAML tree (not changed).
     *
     * @param root the fleet file's tree
     * @param source the file's name for messages
     * @param options one or two {@code PATH=FROM..TO[:STEPS]}
     * @param adjust applied to every point's spec after it is read
     * @return the sweep, not yet run
     * @throws InvalidInputException one line, as above
     */
    static FleetSweep plan(JsonNode root, String source, List<String> options, UnaryOperator<FleetSpec> adjust) {
        if (options.isEmpty() || options.size() > 2) {
            throw new InvalidInputException("--sweep: give one or two (a 2-D sweep), was " + options.size());
        }
        if (root == null || !root.isObject()) {
            throw new InvalidInputException(source + ": expected a YAML mapping with replicas, duration, replica, probes, clients");
        }
        List<Axis> axes = new ArrayList<>();
        for (String o : options) {
            Axis a = axis(root, source, o);
            for (Axis b : axes) {
                if (b.path().equals(a.path())) {
                    throw new InvalidInputException("--sweep " + a.path() + " is given twice");
                }
            }
            axes.add(a);
        }
        long count = 1;
        for (Axis a : axes) {
            count *= a.values().size();
        }
        List<Point> points = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            // the first axis varies fastest: a 2-D sweep is one line of the first axis per value of the second
            List<Double> values = new ArrayList<>();
            int rest = k;
            ObjectNode tree = (ObjectNode) root.deepCopy();
            for (Axis a : axes) {
                double v = a.values().get(rest % a.values().size());
                rest /= a.values().size();
                values.add(v);
                for (Target t : targets(tree, source, a.path())) {
                    t.parent.set(t.key, a.node(v));
                }
            }
            FleetSpec spec;
            try {
                spec = adjust.apply(FleetSpecReader.parse(tree, source));
            } catch (IllegalArgumentException e) {
                throw new InvalidInputException("--sweep at " + label(axes, values) + ": " + e.getMessage());
            }
            if (spec.expectations().isEmpty()) {
                throw new InvalidInputException("--sweep needs at least one expectation to locate (expect: in " + source
                        + ", or --expect 'restarts == 0')");
            }
            points.add(new Point(values, spec));
        }
        refuseAxesThatChangeNothing(axes, points, source);
        return new FleetSweep(source, axes, points);
    }

    /**
     * A path the reader accepts but does not read (a field of a Kubernetes object that the model
     * ignores, such as a {@code Service}'s {@code spec.foo}) would sweep nothing and print the same
     * row at every point: refused. Compares, per axis, the spec at its first and last value, the
     * other axes at their first (specs are records: equal when every field is).
     */
    private static void refuseAxesThatChangeNothing(List<Axis> axes, List<Point> points, String source) {
        int stride = 1;
        for (Axis a : axes) {
            int n = a.values().size();
            if (n > 1 && points.get(0).spec().equals(points.get(stride * (n - 1)).spec())) {
                throw new InvalidInputException("--sweep " + a.path() + ": the fleet is the same at every value (" + source
                        + " has the field, but the model reads nothing from it there); see the fleet file's fields in docs/fleet.md");
            }
            stride *= n;
        }
    }

    /** @return the swept values, in the order given */
    public List<Axis> axes() {
        return axes;
    }

    /** @return every point, the first axis varying fastest */
    public List<Point> points() {
        return points;
    }

    /**
     * @param runs runs per point, 1–1,000 (seeds S…S+runs−1 at every point, S the spec's seed)
     * @param threads worker threads, ≥ 1: points and runs share one pool (one run per thread)
     * @return the result
     * @throws IllegalArgumentException for counts out of range, or more than {@value #MAX_TOTAL_RUNS} runs in all
     */
    public Result run(int runs, int threads) {
        if ((long) runs * points.size() > MAX_TOTAL_RUNS) {
            throw new IllegalArgumentException("--sweep: " + points.size() + " points x " + runs + " runs is "
                    + (long) runs * points.size() + " runs, more than " + MAX_TOTAL_RUNS + ": use fewer STEPS or --runs");
        }
        List<FleetSpec> specs = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (Point p : points) {
            specs.add(p.spec());
            labels.add(label(axes, p.values()));
        }
        return new Result(source, axes, points, FleetEnsemble.runAll(specs, labels, runs, threads));
    }

    /**
     * @param axes the axes
     * @param values one value per axis
     * @return e.g. {@code clients.concurrency=450, replicas=6}
     */
    static String label(List<Axis> axes, List<Double> values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(axes.get(i).path()).append('=').append(axes.get(i).format(values.get(i)));
        }
        return sb.toString();
    }

    // ---- the option and the tree ----------------------------------------------------------

    /** Where a value sits: a mapping and its key. */
    private record Target(ObjectNode parent, String key, String where) {
    }

    private static Axis axis(JsonNode root, String source, String option) {
        Matcher m = OPTION.matcher(option.strip());
        if (!m.matches()) {
            throw new InvalidInputException("--sweep '" + option + "': use PATH=FROM..TO[:STEPS], e.g. clients.concurrency=10..60:11"
                    + " or probes.liveness.timeoutSeconds=1..10");
        }
        String path = m.group(1);
        String from = m.group(2).strip();
        String to = m.group(3).strip();
        List<Target> targets = targets(root, source, path);
        JsonNode current = null;
        for (Target t : targets) {
            JsonNode v = t.parent.get(t.key);
            if (v != null && !v.isNull()) {
                current = v;
                break;
            }
        }
        Kind kind = kind(path, current, from, to);
        double a = value(path, kind, from);
        double b = value(path, kind, to);
        if (!(a < b)) {
            throw new InvalidInputException("--sweep " + path + ": FROM must be below TO, was " + from + ".." + to);
        }
        int steps;
        if (m.group(4) != null) {
            long s = Long.parseLong(m.group(4));
            if (s < 2 || s > MAX_STEPS) {
                throw new InvalidInputException("--sweep " + path + ": STEPS (the number of points) must be 2-" + MAX_STEPS + ", was " + s);
            }
            steps = (int) s;
        } else {
            steps = kind == Kind.INTEGER && b - a <= 20 ? (int) (b - a) + 1 : 11;
        }
        LinkedHashSet<Double> values = new LinkedHashSet<>();
        for (int i = 0; i < steps; i++) {
            double v = a + (b - a) * i / (steps - 1);
            v = kind == Kind.INTEGER ? Math.round(v) : kind == Kind.DURATION ? Math.round(v) : round(v);
            values.add(v);
        }
        return new Axis(path, kind, new ArrayList<>(values));
    }

    private static Kind kind(String path, JsonNode current, String from, String to) {
        boolean plain = NUMBER.matcher(from).matches() && NUMBER.matcher(to).matches();
        boolean durations = DURATION.matcher(from).matches() && DURATION.matcher(to).matches();
        boolean percents = PERCENT.matcher(from).matches() && PERCENT.matcher(to).matches();
        if (current != null && current.isNumber()) {
            if (!plain) {
                throw new InvalidInputException("--sweep " + path + " is a number (" + current.asText() + "): FROM and TO must be numbers, was "
                        + from + ".." + to);
            }
            return from.contains(".") || to.contains(".") || !current.isIntegralNumber() ? Kind.DECIMAL : Kind.INTEGER;
        }
        if (current != null && current.isTextual()) {
            String v = current.asText().strip();
            if (DURATION.matcher(v).matches()) {
                if (!durations && !plain) {
                    throw new InvalidInputException("--sweep " + path + " is a duration (" + v + "): give FROM and TO as durations, e.g. 500ms..5s, was "
                            + from + ".." + to);
                }
                return Kind.DURATION;
            }
            if (PERCENT.matcher(v).matches()) {
                if (!percents && !plain) {
                    throw new InvalidInputException("--sweep " + path + " is a percentage (" + v + "): give FROM and TO as e.g. 0%..50%, was "
                            + from + ".." + to);
                }
                return Kind.PERCENT;
            }
            if (NUMBER.matcher(v).matches() && plain) {
                return v.contains(".") || from.contains(".") || to.contains(".") ? Kind.DECIMAL : Kind.INTEGER;
            }
        }
        if (current != null) {
            String what = current.isObject() ? "a mapping (sweep a field inside it)" : current.isArray() ? "a list (give an index, e.g. "
                    + path + "[0].FIELD)" : "'" + current.asText() + "'";
            throw new InvalidInputException("--sweep " + path + " is " + what + ", not a number");
        }
        // the file does not write it: the range says what it is
        if (durations) {
            return Kind.DURATION;
        }
        if (percents) {
            return Kind.PERCENT;
        }
        if (plain) {
            return from.contains(".") || to.contains(".") ? Kind.DECIMAL : Kind.INTEGER;
        }
        throw new InvalidInputException("--sweep " + path + ": FROM and TO must be numbers, durations (500ms..5s) or percentages (0%..50%), was "
                + from + ".." + to);
    }

    private static double value(String path, Kind kind, String text) {
        Matcher d = DURATION.matcher(text);
        if (kind == Kind.DURATION) {
            return d.matches() ? Durations.parse(text).toNanos() / 1e6 : Double.parseDouble(text) * 1000; // a plain number: seconds
        }
        Matcher p = PERCENT.matcher(text);
        if (kind == Kind.PERCENT) {
            return p.matches() ? Double.parseDouble(p.group(1)) : Double.parseDouble(text);
        }
        if (kind == Kind.INTEGER && text.contains(".")) {
            throw new InvalidInputException("--sweep " + path + " is a whole number, was " + text);
        }
        return Double.parseDouble(text);
    }

    /**
     * @return where {@code path} points in {@code root}: one mapping and key, or, through a list
     *         without an index, every element that has the next field
     */
    private static List<Target> targets(JsonNode root, String source, String path) {
        String[] segs = path.split("\\.");
        List<JsonNode> here = List.of(root);
        List<String> wheres = List.of("");
        for (int i = 0; i < segs.length; i++) {
            Matcher m = SEGMENT.matcher(segs[i]);
            if (!m.matches()) {
                throw new InvalidInputException("--sweep " + path + ": '" + segs[i] + "' is not a field name");
            }
            String key = m.group(1);
            boolean last = i == segs.length - 1;
            List<JsonNode> next = new ArrayList<>();
            List<String> nextWhere = new ArrayList<>();
            List<Target> leaves = new ArrayList<>();
            for (int k = 0; k < here.size(); k++) {
                JsonNode n = here.get(k);
                String at = wheres.get(k).isEmpty() ? key : wheres.get(k) + "." + key;
                if (last && m.group(2) == null) {
                    leaves.add(new Target((ObjectNode) n, key, at));
                    continue;
                }
                JsonNode child = n.get(key);
                if ((child == null || child.isNull()) && m.group(2) == null) {
                    child = ((ObjectNode) n).putObject(key); // a section the file leaves out: the reader validates what goes in it
                } else if (child == null || child.isNull()) {
                    throw new InvalidInputException("--sweep " + path + ": " + source + " has no " + at);
                }
                if (m.group(2) != null) {
                    int idx = Integer.parseInt(m.group(2));
                    if (!child.isArray() || idx >= child.size()) {
                        throw new InvalidInputException("--sweep " + path + ": " + source + " has no " + at + "[" + idx + "]"
                                + (child.isArray() ? " (the list has " + child.size() + ")" : " (" + at + " is not a list)"));
                    }
                    child = child.get(idx);
                    at = at + "[" + idx + "]";
                    if (last) {
                        throw new InvalidInputException("--sweep " + path + ": " + at + " is a list element; sweep a field inside it");
                    }
                }
                descend(child, at, segs[i + 1], path, source, next, nextWhere);
            }
            if (last) {
                return leaves;
            }
            here = next;
            wheres = nextWhere;
        }
        throw new IllegalStateException("unreachable");
    }

    /**
     * Adds where the path goes on from {@code child}: the mapping itself, or, for a list, every
     * element that has the next field.
     *
     * @throws InvalidInputException when {@code child} is neither, or no element has the field
     */
    private static void descend(JsonNode child, String at, String nextSeg, String path, String source, List<JsonNode> next,
            List<String> nextWhere) {
        if (child.isArray()) {
            String field = SEGMENT.matcher(nextSeg).matches() ? nextSeg.replaceAll("\\[.*", "") : nextSeg;
            int found = 0;
            for (int j = 0; j < child.size(); j++) {
                if (child.get(j).isObject() && child.get(j).has(field)) {
                    next.add(child.get(j));
                    nextWhere.add(at + "[" + j + "]");
                    found++;
                }
            }
            if (found == 0) {
                throw new InvalidInputException("--sweep " + path + ": no element of " + at + " in " + source + " has " + field
                        + "; name one, e.g. " + at + "[0]." + field);
            }
        } else if (child.isObject()) {
            next.add(child);
            nextWhere.add(at);
        } else {
            throw new InvalidInputException("--sweep " + path + ": " + at + " in " + source + " is '" + child.asText()
                    + "', not a mapping");
        }
    }

    private static double round(double v) {
        return Math.round(v * 1e6) / 1e6;
    }

    private static String plain(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }

    // ---- the result ------------------------------------------------------------------------

    /**
     * Where one expectation flips along one line of the sweep (the first axis, at one value of
     * the second). In sweep order: {@code held} is the value on the side where it holds in every
     * run and {@code failed} the adjacent one where it fails in at least one run; {@code failedAll}
     * the nearest value beyond it where it fails in every run; {@code unstable} the values between
     * where it holds in some runs only. {@code rising} says which way it breaks: true when it holds
     * below the boundary and fails above it.
     *
     * @param expectation the expectation as written
     * @param at the second axis' value this line is at, empty for a 1-D sweep
     * @param states the expectation's state at each point of the line, in sweep order
     * @param held the last value holding in every run next to the boundary, if the line has one
     * @param failed the first value failing in some run next to the boundary, if the line has one
     * @param failedAll the nearest value beyond the boundary failing in every run, if any
     * @param unstable the values beyond the boundary (before {@code failedAll}) holding in some runs only
     * @param rising true when it holds below and fails above; false for the other way round
     * @param flips how many times the state changes between HOLDS and not along the line (1 for a clean boundary)
     */
    public record Boundary(String expectation, Optional<Double> at, List<State> states, Optional<Double> held,
            Optional<Double> failed, Optional<Double> failedAll, List<Double> unstable, boolean rising, int flips) {
        /**
         * Copies the collections (unmodifiable).
         *
         * @param expectation as written
         * @param at the second axis' value, if any
         * @param states the state at each point
         * @param held the holding side of the boundary
         * @param failed the failing side of the boundary
         * @param failedAll where it fails in every run
         * @param unstable the unstable band
         * @param rising which way it breaks
         * @param flips state changes along the line
         */
        public Boundary {
            Objects.requireNonNull(expectation, "expectation");
            Objects.requireNonNull(at, "at");
            states = List.copyOf(states);
            unstable = List.copyOf(unstable);
        }
    }

    /**
     * A sweep's outcome: one ensemble per point, and where each expectation flips. Immutable.
     */
    public static final class Result {
        private final String source;
        private final List<Axis> axes;
        private final List<Point> points;
        private final List<FleetEnsemble> ensembles;

        Result(String source, List<Axis> axes, List<Point> points, List<FleetEnsemble> ensembles) {
            this.source = source;
            this.axes = List.copyOf(axes);
            this.points = List.copyOf(points);
            this.ensembles = List.copyOf(ensembles);
        }

        /** @return the fleet file's name */
        public String source() {
            return source;
        }

        /** @return the swept values */
        public List<Axis> axes() {
            return axes;
        }

        /** @return the points, the first axis varying fastest */
        public List<Point> points() {
            return points;
        }

        /** @return one ensemble per point, in point order */
        public List<FleetEnsemble> ensembles() {
            return ensembles;
        }

        /** @return the expectations, as written (the same at every point) */
        public List<String> expectations() {
            List<String> out = new ArrayList<>();
            for (FleetExpectation e : points.get(0).spec().expectations()) {
                out.add(e.text());
            }
            return out;
        }

        /**
         * @param point a point index
         * @param expectation an expectation index
         * @return how it fared there
         */
        public State state(int point, int expectation) {
            FleetEnsemble.Verdict v = ensembles.get(point).verdicts().get(expectation);
            return v.held() == v.runs() ? State.HOLDS : v.held() == 0 ? State.FAILS : State.UNSTABLE;
        }

        /**
         * @return per expectation, one boundary per line of the first axis (one line for a 1-D
         *         sweep; for a 2-D sweep one per value of the second axis), expectations outermost
         */
        public List<Boundary> boundaries() {
            List<Boundary> out = new ArrayList<>();
            int n = axes.get(0).values().size();
            int lines = points.size() / n;
            List<String> ex = expectations();
            for (int e = 0; e < ex.size(); e++) {
                for (int line = 0; line < lines; line++) {
                    List<State> states = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        states.add(state(line * n + i, e));
                    }
                    Optional<Double> at = axes.size() > 1 ? Optional.of(axes.get(1).values().get(line)) : Optional.empty();
                    out.add(boundary(ex.get(e), at, states, axes.get(0).values()));
                }
            }
            return out;
        }

        static Boundary boundary(String expectation, Optional<Double> at, List<State> states, List<Double> values) {
            int flips = 0;
            for (int i = 1; i < states.size(); i++) {
                if ((states.get(i) == State.HOLDS) != (states.get(i - 1) == State.HOLDS)) {
                    flips++;
                }
            }
            int n = states.size();
            if (flips == 0) {
                return new Boundary(expectation, at, states, Optional.empty(), Optional.empty(), Optional.empty(), List.of(), true, 0);
            }
            List<Double> unstable = new ArrayList<>();
            Optional<Double> failedAll = Optional.empty();
            if (states.get(0) == State.HOLDS) {
                int i = 1;
                while (states.get(i) == State.HOLDS) {
                    i++;
                }
                for (int j = i; j < n && states.get(j) != State.HOLDS; j++) {
                    if (states.get(j) == State.FAILS) {
                        failedAll = Optional.of(values.get(j));
                        break;
                    }
                    unstable.add(values.get(j));
                }
                return new Boundary(expectation, at, states, Optional.of(values.get(i - 1)), Optional.of(values.get(i)), failedAll,
                        unstable, true, flips);
            }
            int i = 1;
            while (states.get(i) != State.HOLDS) {
                i++;
            }
            for (int j = i - 1; j >= 0 && states.get(j) != State.HOLDS; j--) {
                if (states.get(j) == State.FAILS) {
                    failedAll = Optional.of(values.get(j));
                    break;
                }
                unstable.add(0, values.get(j));
            }
            return new Boundary(expectation, at, states, Optional.of(values.get(i)), Optional.of(values.get(i - 1)), failedAll, unstable,
                    false, flips);
        }
    }
}
