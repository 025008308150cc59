package dev.vitals.kubesim.fleet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A sweep's reports ({@link FleetSweep.Result}): a text table with one row per point and the
 * boundary of each expectation, the JSON report, and one HTML page with an SVG chart per
 * expectation (1-D: its measured value over the swept one, median and range, with the bound, the
 * unstable band and the boundary marked; 2-D: a grid of points coloured by state with each line's
 * boundary drawn). Stateless; thread-safe.
 */
public final class SweepReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final List<FleetEnsemble.Figure> CONTEXT = List.of(FleetEnsemble.FIGURES.get(0), FleetEnsemble.FIGURES.get(1),
            FleetEnsemble.FIGURES.get(7));
    private static final String HOLDS = "#34a853";
    private static final String UNSTABLE = "#f9ab00";
    private static final String FAILS = "#d93025";

    private SweepReport() {
    }

    /**
     * @param r a sweep's result
     * @return the header, one row per point (the swept values, restarts, kills, errors %, then per
     *         expectation its state and measured value) and one line per boundary
     */
    public static String text(FleetSweep.Result r) {
        StringBuilder sb = new StringBuilder(header(r)).append('\n');
        List<String> ex = r.expectations();
        List<String> head = new ArrayList<>();
        for (FleetSweep.Axis a : r.axes()) {
            head.add(a.path());
        }
        for (FleetEnsemble.Figure f : CONTEXT) {
            head.add(f.column());
        }
        head.addAll(ex);
        List<List<String>> rows = new ArrayList<>();
        for (int p = 0; p < r.points().size(); p++) {
            List<String> row = new ArrayList<>();
            for (int a = 0; a < r.axes().size(); a++) {
                row.add(r.axes().get(a).format(r.points().get(p).values().get(a)));
            }
            FleetEnsemble e = r.ensembles().get(p);
            for (FleetEnsemble.Figure f : CONTEXT) {
                row.add(FleetReport.spread(e.spread(f)));
            }
            List<FleetEnsemble.Verdict> vs = e.verdicts();
            for (int k = 0; k < ex.size(); k++) {
                row.add(cell(r.state(p, k), vs.get(k)));
            }
            rows.add(row);
        }
        int[] w = new int[head.size()];
        for (int c = 0; c < w.length; c++) {
            w[c] = head.get(c).length();
            for (List<String> row : rows) {
                w[c] = Math.max(w[c], row.get(c).length());
            }
        }
        line(sb, head, w, r.axes().size());
        for (List<String> row : rows) {
            line(sb, row, w, r.axes().size());
        }
        sb.append("(each figure: median over the runs, [min-max] where they differ; an expectation: holds in every run, fails in every run,"
                + " or k/N: held in k of N runs)\n");
        sb.append("where each expectation flips:\n");
        for (FleetSweep.Boundary b : r.boundaries()) {
            sb.append("  ").append(b.expectation()).append(": ").append(describe(r, b)).append('\n');
        }
        return sb.toString();
    }

    private static String header(FleetSweep.Result r) {
        FleetEnsemble first = r.ensembles().get(0);
        StringBuilder sb = new StringBuilder(fileName(r.source())).append(" (model engine): sweep ");
        for (int i = 0; i < r.axes().size(); i++) {
            FleetSweep.Axis a = r.axes().get(i);
            sb.append(i == 0 ? "" : " x ").append(a.path()).append(' ').append(a.format(a.values().get(0))).append("..")
                    .append(a.format(a.values().get(a.values().size() - 1))).append(" (").append(a.values().size()).append(" points)");
        }
        List<Long> seeds = first.seeds();
        sb.append(", ").append(seeds.size()).append(seeds.size() == 1 ? " run" : " runs").append(" per point (seed")
                .append(seeds.size() == 1 ? " " + seeds.get(0) : "s " + seeds.get(0) + "-" + seeds.get(seeds.size() - 1)).append(")");
        FleetSpec s = r.points().get(0).spec();
        boolean replicasSwept = r.axes().stream().anyMatch(a -> a.path().equals("replicas"));
        if (!replicasSwept) {
            sb.append(", ").append(s.replicas()).append(s.replicas() == 1 ? " replica" : " replicas");
        }
        return sb.toString();
    }

    private static String fileName(String source) {
        int slash = Math.max(source.lastIndexOf('/'), source.lastIndexOf('\\'));
        return source.substring(slash + 1);
    }

    private static String cell(FleetSweep.State s, FleetEnsemble.Verdict v) {
        String word = s == FleetSweep.State.UNSTABLE ? v.held() + "/" + v.runs() : s.word();
        return word + " " + FleetReport.spread(v.actual());
    }

    private static void line(StringBuilder sb, List<String> cells, int[] w, int left) {
        for (int c = 0; c < cells.size(); c++) {
            String fmt = c < left || c >= left + CONTEXT.size() ? "%-" + w[c] + "s" : "%" + w[c] + "s";
            sb.append(c == 0 ? "" : "  ").append(String.format(Locale.ROOT, fmt, cells.get(c)));
        }
        int end = sb.length();
        while (end > 0 && sb.charAt(end - 1) == ' ') {
            end--;
        }
        sb.setLength(end);
        sb.append('\n');
    }

    /**
     * @param r the result
     * @param b one of its boundaries
     * @return e.g. {@code holds up to clients.concurrency=450; fails in some run from 500 (unstable 500-550), in every run from 600}
     */
    static String describe(FleetSweep.Result r, FleetSweep.Boundary b) {
        FleetSweep.Axis a = r.axes().get(0);
        StringBuilder sb = new StringBuilder();
        b.at().ifPresent(v -> sb.append("at ").append(r.axes().get(1).path()).append('=').append(r.axes().get(1).format(v)).append(": "));
        List<Double> values = a.values();
        if (b.held().isEmpty()) {
            if (b.states().stream().allMatch(s -> s == FleetSweep.State.HOLDS)) {
                return sb.append("holds at every point, in every run (no boundary in ").append(range(a, values)).append(')').toString();
            }
            if (b.states().stream().allMatch(s -> s == FleetSweep.State.FAILS)) {
                return sb.append("fails at every point, in every run (no boundary in ").append(range(a, values)).append(')').toString();
            }
            return sb.append("never holds in every run: ").append(segments(a, b)).toString();
        }
        String held = a.format(b.held().get());
        String failed = a.format(b.failed().get());
        if (b.rising()) {
            sb.append("holds up to ").append(a.path()).append('=').append(held).append("; fails in some run from ").append(failed);
        } else {
            sb.append("fails in some run up to ").append(a.path()).append('=').append(failed).append("; holds from ").append(held);
        }
        if (!b.unstable().isEmpty()) {
            sb.append(" (unstable ").append(a.format(b.unstable().get(0)));
            if (b.unstable().size() > 1) {
                sb.append('-').append(a.format(b.unstable().get(b.unstable().size() - 1)));
            }
            sb.append(')');
        }
        if (b.flips() > 1) {
            // no single boundary: "holds from X" would hide the later flips; the stretches say it all
            StringBuilder m = new StringBuilder();
            b.at().ifPresent(v -> m.append("at ").append(r.axes().get(1).path()).append('=').append(r.axes().get(1).format(v)).append(": "));
            return m.append("not monotonic in ").append(a.path()).append(" (").append(b.flips()).append(" flips): ")
                    .append(segments(a, b)).toString();
        }
        if (b.failedAll().isPresent()) {
            sb.append(b.rising() ? ", fails in every run from " : ", fails in every run up to ").append(a.format(b.failedAll().get()));
        } else {
            sb.append(", fails in every run at no point of ").append(range(a, values));
        }
        return sb.toString();
    }

    private static String range(FleetSweep.Axis a, List<Double> values) {
        return a.format(values.get(0)) + ".." + a.format(values.get(values.size() - 1));
    }

    /** @return e.g. {@code holds 50-450, unstable 500-550, fails 600-1000} */
    private static String segments(FleetSweep.Axis a, FleetSweep.Boundary b) {
        StringBuilder sb = new StringBuilder();
        List<Double> v = a.values();
        int i = 0;
        while (i < b.states().size()) {
            int j = i;
            while (j + 1 < b.states().size() && b.states().get(j + 1) == b.states().get(i)) {
                j++;
            }
            sb.append(sb.length() == 0 ? "" : ", ").append(b.states().get(i).word()).append(' ').append(a.format(v.get(i)));
            if (j > i) {
                sb.append('-').append(a.format(v.get(j)));
            }
            i = j + 1;
        }
        return sb.toString();
    }

    /**
     * The JSON report: {@code {"sweep":{"file","runs","seeds","axes":[{"path","kind","values"}]},
     * "points":[{"values","label","figures":{"restarts":{"median","min","max"},…},"checks":[{"expect",
     * "state","held","runs","passed","actual":{…}}]}],"boundaries":[{"expect","along","at","direction",
     * "held","failed","failedAll","unstable","flips","states","summary"}]}}}; values are in the file's
     * unit (milliseconds for a duration, percent for a percentage); an absent boundary value is null.
     *
     * @param r the result
     * @return the JSON text
     */
    public static String json(FleetSweep.Result r) {
        ObjectNode root = JSON.createObjectNode();
        FleetReport.percentiles(root);
        ObjectNode sweep = root.putObject("sweep");
        sweep.put("file", r.source()).put("runs", r.ensembles().get(0).runs().size());
        ArrayNode seeds = sweep.putArray("seeds");
        r.ensembles().get(0).seeds().forEach(seeds::add);
        ArrayNode axes = sweep.putArray("axes");
        for (FleetSweep.Axis a : r.axes()) {
            ObjectNode n = axes.addObject().put("path", a.path()).put("kind", a.kind().name().toLowerCase(Locale.ROOT));
            ArrayNode vs = n.putArray("values");
            for (double v : a.values()) {
                value(vs, a, v);
            }
        }
        points(root.putArray("points"), r);
        boundaries(root.putArray("boundaries"), r);
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One object per point: its values, label, every figure's spread and every expectation's state. */
    private static void points(ArrayNode points, FleetSweep.Result r) {
        List<String> ex = r.expectations();
        for (int p = 0; p < r.points().size(); p++) {
            FleetEnsemble e = r.ensembles().get(p);
            ObjectNode n = points.addObject();
            ArrayNode vs = n.putArray("values");
            for (int a = 0; a < r.axes().size(); a++) {
                value(vs, r.axes().get(a), r.points().get(p).values().get(a));
            }
            n.put("label", e.label());
            ObjectNode figs = n.putObject("figures");
            for (FleetEnsemble.Figure f : FleetEnsemble.FIGURES) {
                spread(figs.putObject(f.key()), e.spread(f));
            }
            ArrayNode checks = n.putArray("checks");
            List<FleetEnsemble.Verdict> verdicts = e.verdicts();
            for (int k = 0; k < ex.size(); k++) {
                FleetEnsemble.Verdict v = verdicts.get(k);
                ObjectNode c = checks.addObject().put("expect", v.expectation()).put("state", r.state(p, k).word()).put("held", v.held())
                        .put("runs", v.runs()).put("passed", v.passed());
                spread(c.putObject("actual"), v.actual());
            }
        }
    }

    /** One object per expectation's boundary along the first axis (at each value of the second, in 2-D). */
    private static void boundaries(ArrayNode bs, FleetSweep.Result r) {
        FleetSweep.Axis first = r.axes().get(0);
        for (FleetSweep.Boundary b : r.boundaries()) {
            ObjectNode n = bs.addObject().put("expect", b.expectation()).put("along", first.path());
            if (b.at().isPresent()) {
                value(n.putArray("at"), r.axes().get(1), b.at().get());
                n.set("at", n.get("at").get(0));
            } else {
                n.putNull("at");
            }
            n.put("direction", b.held().isEmpty() ? "none" : b.rising() ? "fails-above" : "fails-below");
            opt(n, "held", first, b.held());
            opt(n, "failed", first, b.failed());
            opt(n, "failedAll", first, b.failedAll());
            ArrayNode un = n.putArray("unstable");
            b.unstable().forEach(v -> value(un, first, v));
            n.put("flips", b.flips());
            ArrayNode st = n.putArray("states");
            b.states().forEach(s -> st.add(s.word()));
            n.put("summary", describe(r, b));
        }
    }

    private static void spread(ObjectNode n, FleetEnsemble.Spread s) {
        n.put("median", s.median()).put("min", s.min()).put("max", s.max());
    }

    private static void value(ArrayNode into, FleetSweep.Axis a, double v) {
        if (a.kind() == FleetSweep.Kind.INTEGER) {
            into.add(Math.round(v));
        } else {
            into.add(v);
        }
    }

    private static void opt(ObjectNode n, String key, FleetSweep.Axis a, Optional<Double> v) {
        if (v.isEmpty()) {
            n.putNull(key);
        } else if (a.kind() == FleetSweep.Kind.INTEGER) {
            n.put(key, Math.round(v.get()));
        } else {
            n.put(key, v.get());
        }
    }

    // ---- HTML -------------------------------------------------------------------------------

    /**
     * One self-contained page: the text table, then per expectation a chart (1-D: the measured
     * value's median and range over the swept value, the bound dashed, each point coloured by
     * state, the unstable band shaded and the boundary drawn; 2-D: a grid of points coloured by
     * state, each line's boundary drawn between its cells).
     *
     * @param title the page title
     * @param r the result
     * @return the HTML text
     */
    public static String html(String title, FleetSweep.Result r) {
        StringBuilder sb = new StringBuilder();
        FleetReport.head(sb, title);
        sb.append("<h1>").append(FleetReport.esc(title)).append("</h1>\n<pre>").append(FleetReport.esc(text(r))).append("</pre>\n");
        sb.append("<p class='cap'>Colours: <span style='color:").append(HOLDS).append("'>&#9632; holds in every run</span> "
                + "<span style='color:").append(UNSTABLE).append("'>&#9632; holds in some runs (unstable)</span> <span style='color:")
                .append(FAILS).append("'>&#9632; fails in every run</span>.</p>\n");
        List<String> ex = r.expectations();
        List<FleetSweep.Boundary> all = r.boundaries();
        int lines = all.size() / ex.size();
        for (int k = 0; k < ex.size(); k++) {
            sb.append("<h2>").append(FleetReport.esc(ex.get(k))).append("</h2>\n");
            List<FleetSweep.Boundary> mine = all.subList(k * lines, (k + 1) * lines);
            for (FleetSweep.Boundary b : mine) {
                sb.append("<div class='cap'>").append(FleetReport.esc(describe(r, b))).append("</div>\n");
            }
            if (r.axes().size() == 1) {
                chart(sb, r, k, mine.get(0));
            } else {
                grid(sb, r, k, mine);
            }
        }
        sb.append("</body></html>\n");
        return sb.toString();
    }

    private static String color(FleetSweep.State s) {
        return s == FleetSweep.State.HOLDS ? HOLDS : s == FleetSweep.State.UNSTABLE ? UNSTABLE : FAILS;
    }

    /** Which points get a tick label: all of them up to 12, else about 10 evenly, always the first and the last. */
    private static boolean labelled(int i, int n) {
        int every = Math.max(1, (int) Math.ceil((n - 1) / 10.0));
        return n <= 12 || i == n - 1 || (i % every == 0 && n - 1 - i >= every);
    }

    /**
     * A sweep chart's frame.
     *
     * @param w width, px
     * @param left left margin, px
     * @param right right margin, px
     * @param h the plot's height, px
     * @param x the x of a swept value
     * @param y the y of a measured value
     */
    private record Plot(int w, int left, int right, int h, java.util.function.DoubleUnaryOperator x,
            java.util.function.DoubleUnaryOperator y) {
    }

    private static void chart(StringBuilder sb, FleetSweep.Result r, int k, FleetSweep.Boundary b) {
        FleetSweep.Axis a = r.axes().get(0);
        List<Double> xs = a.values();
        int n = xs.size();
        FleetExpectation e = r.points().get(0).spec().expectations().get(k);
        double[] med = new double[n];
        double[] lo = new double[n];
        double[] hi = new double[n];
        double top = e.value();
        for (int i = 0; i < n; i++) {
            FleetEnsemble.Spread s = r.ensembles().get(i).verdicts().get(k).actual();
            med[i] = s.median();
            lo[i] = s.min();
            hi[i] = s.max();
            top = Math.max(top, s.max());
        }
        top = top <= 0 ? 1 : top * 1.1;
        int w = 960;
        int left = 70;
        int right = 20;
        int h = 220;
        int bottom = h + 40;
        double x0 = xs.get(0);
        double span = Math.max(1e-9, xs.get(n - 1) - x0);
        double ytop = top;
        Plot p = new Plot(w, left, right, h, v -> left + (v - x0) / span * (w - left - right), v -> h - v / ytop * (h - 10));
        sb.append(FleetReport.svgOpen(w, bottom + 10));
        unstableBand(sb, p, b, n > 1 ? span / (n - 1) : 1);
        spread(sb, p, xs, lo, med, hi, e);
        points(sb, p, r, k, b, med);
        axes(sb, p, a, top, e);
        sb.append("</svg>\n<div class='cap'>The measured value at each point: median (line, dot coloured by state) and the range over the runs"
                + " (shaded); dashed: the expectation's bound; red: the boundary; amber: the unstable band.</div>\n");
    }


    /** The unstable band, shaded, and the plot's two axis lines. */
    private static void unstableBand(StringBuilder sb, Plot p, FleetSweep.Boundary b, double step) {
        int w = p.w();
        int left = p.left();
        int right = p.right();
        int h = p.h();
        java.util.function.DoubleUnaryOperator x = p.x();
        if (!b.unstable().isEmpty()) {
            double u0 = x.applyAsDouble(b.unstable().get(0) - step / 2);
            double u1 = x.applyAsDouble(b.unstable().get(b.unstable().size() - 1) + step / 2);
            sb.append("<rect x='").append(f(Math.max(left, u0))).append("' y='0' width='").append(f(Math.min(w - right, u1) - Math.max(left, u0)))
                    .append("' height='").append(h).append("' fill='").append(UNSTABLE).append("' fill-opacity='0.18'/>");
        }
        sb.append("<line x1='").append(left).append("' y1='").append(h).append("' x2='").append(w - right).append("' y2='").append(h)
                .append("' stroke='#999'/><line x1='").append(left).append("' y1='0' x2='").append(left).append("' y2='").append(h)
                .append("' stroke='#999'/>");
    }

    /** The range over the runs (shaded), the median (line) and the expectation's bound (dashed). */
    private static void spread(StringBuilder sb, Plot p, List<Double> xs, double[] lo, double[] med, double[] hi, FleetExpectation e) {
        int w = p.w();
        int left = p.left();
        int n = xs.size();
        int right = p.right();
        java.util.function.DoubleUnaryOperator x = p.x();
        java.util.function.DoubleUnaryOperator y = p.y();
        StringBuilder upper = new StringBuilder();
        StringBuilder lower = new StringBuilder();
        StringBuilder mid = new StringBuilder();
        for (int i = 0; i < n; i++) {
            double px = x.applyAsDouble(xs.get(i));
            upper.append(i == 0 ? "M" : "L").append(f(px)).append(',').append(f(y.applyAsDouble(hi[i])));
            lower.insert(0, "L" + f(px) + "," + f(y.applyAsDouble(lo[i])));
            mid.append(i == 0 ? "M" : "L").append(f(px)).append(',').append(f(y.applyAsDouble(med[i])));
        }
        sb.append("<path d='").append(upper).append(lower).append("Z' fill='#aecbfa' stroke='none'/>");
        sb.append("<path d='").append(mid).append("' fill='none' stroke='#1a73e8' stroke-width='1.5'/>");
        double by = y.applyAsDouble(e.value());
        sb.append("<line x1='").append(left).append("' x2='").append(w - right).append("' y1='").append(f(by)).append("' y2='").append(f(by))
                .append("' stroke='#555' stroke-dasharray='6,4'/><text x='").append(w - right - 4).append("' y='").append(f(by - 4))
                .append("' font-size='11' text-anchor='end'>bound: ").append(FleetReport.esc(e.op() + " " + FleetReport.spread(
                        new FleetEnsemble.Spread(e.value(), e.value(), e.value())))).append("</text>");
    }

    /** One dot per point, coloured by its state, and the boundary's line where there is one. */
    private static void points(StringBuilder sb, Plot p, FleetSweep.Result r, int k, FleetSweep.Boundary b, double[] med) {
        int h = p.h();
        java.util.function.DoubleUnaryOperator x = p.x();
        java.util.function.DoubleUnaryOperator y = p.y();
        FleetSweep.Axis a = r.axes().get(0);
        List<Double> xs = a.values();
        int n = xs.size();
        for (int i = 0; i < n; i++) {
            sb.append("<circle cx='").append(f(x.applyAsDouble(xs.get(i)))).append("' cy='").append(f(y.applyAsDouble(med[i])))
                    .append("' r='4' fill='").append(color(b.states().get(i))).append("'><title>").append(FleetReport.esc(a.path() + "="
                            + a.format(xs.get(i)) + ": " + b.states().get(i).word() + ", actual " + FleetReport.spread(
                                    r.ensembles().get(i).verdicts().get(k).actual()))).append("</title></circle>");
        }
        if (b.held().isPresent()) {
            double bx = (x.applyAsDouble(b.held().get()) + x.applyAsDouble(b.failed().get())) / 2;
            sb.append("<line x1='").append(f(bx)).append("' x2='").append(f(bx)).append("' y1='0' y2='").append(h).append("' stroke='")
                    .append(FAILS).append("' stroke-width='2' stroke-dasharray='5,3'/><text x='").append(f(bx + 4))
                    .append("' y='12' font-size='11' fill='").append(FAILS).append("'>boundary: ").append(FleetReport.esc(
                            a.format(b.held().get()) + " | " + a.format(b.failed().get()))).append("</text>");
        }
    }

    /** Every labelled point's value, the swept path, and the y axis at 0 and the top with the metric's name. */
    private static void axes(StringBuilder sb, Plot p, FleetSweep.Axis a, double top, FleetExpectation e) {
        int w = p.w();
        int left = p.left();
        int right = p.right();
        int h = p.h();
        java.util.function.DoubleUnaryOperator x = p.x();
        List<Double> xs = a.values();
        int n = xs.size();
        for (int i = 0; i < n; i++) {
            if (labelled(i, n)) {
                double px = x.applyAsDouble(xs.get(i));
                sb.append("<line x1='").append(f(px)).append("' x2='").append(f(px)).append("' y1='").append(h).append("' y2='").append(h + 4)
                        .append("' stroke='#999'/><text x='").append(f(px)).append("' y='").append(h + 16)
                        .append("' font-size='10' text-anchor='middle'>").append(FleetReport.esc(a.format(xs.get(i)))).append("</text>");
            }
        }
        sb.append("<text x='").append((left + w - right) / 2).append("' y='").append(h + 34).append("' font-size='12' text-anchor='middle'>")
                .append(FleetReport.esc(a.path())).append("</text>");
        sb.append("<text x='").append(left - 6).append("' y='").append(h).append("' font-size='10' text-anchor='end'>0</text>");
        sb.append("<text x='").append(left - 6).append("' y='14' font-size='10' text-anchor='end'>").append(FleetReport.esc(
                FleetReport.spread(new FleetEnsemble.Spread(round(top), round(top), round(top))))).append("</text>");
        sb.append("<text x='12' y='").append(h / 2).append("' font-size='11' text-anchor='middle' transform='rotate(-90 12 ").append(h / 2)
                .append(")'>").append(FleetReport.esc(metric(e))).append("</text>");
    }

    private static void grid(StringBuilder sb, FleetSweep.Result r, int k, List<FleetSweep.Boundary> lines) {
        FleetSweep.Axis a = r.axes().get(0);
        FleetSweep.Axis c = r.axes().get(1);
        int nx = a.values().size();
        int ny = c.values().size();
        int left = 90;
        int cw = Math.max(12, Math.min(48, 860 / nx));
        int ch = Math.max(12, Math.min(28, 420 / ny));
        int w = left + nx * cw + 20;
        int h = ny * ch;
        sb.append(FleetReport.svgOpen(w, h + 50));
        for (int j = 0; j < ny; j++) {
            FleetSweep.Boundary b = lines.get(j);
            int yy = (ny - 1 - j) * ch; // the second axis grows upwards
            for (int i = 0; i < nx; i++) {
                FleetSweep.State s = b.states().get(i);
                sb.append("<rect x='").append(left + i * cw).append("' y='").append(yy).append("' width='").append(cw - 1).append("' height='")
                        .append(ch - 1).append("' fill='").append(color(s)).append("' fill-opacity='0.75'><title>").append(FleetReport.esc(
                                a.path() + "=" + a.format(a.values().get(i)) + ", " + c.path() + "=" + c.format(c.values().get(j)) + ": "
                                        + s.word() + ", actual " + FleetReport.spread(r.ensembles().get(j * nx + i).verdicts().get(k).actual())))
                        .append("</title></rect>");
            }
            if (b.held().isPresent()) {
                int hi = a.values().indexOf(b.held().get());
                int fi = a.values().indexOf(b.failed().get());
                int bx = left + Math.max(hi, fi) * cw - 1;
                sb.append("<line x1='").append(bx).append("' x2='").append(bx).append("' y1='").append(yy).append("' y2='").append(yy + ch)
                        .append("' stroke='#222' stroke-width='3'/>");
            }
            if (labelled(j, ny)) {
                sb.append("<text x='").append(left - 6).append("' y='").append(yy + ch / 2 + 4).append("' font-size='10' text-anchor='end'>")
                        .append(FleetReport.esc(c.format(c.values().get(j)))).append("</text>");
            }
        }
        for (int i = 0; i < nx; i++) {
            if (labelled(i, nx)) {
                sb.append("<text x='").append(left + i * cw + cw / 2).append("' y='").append(h + 14)
                        .append("' font-size='10' text-anchor='middle'>").append(FleetReport.esc(a.format(a.values().get(i)))).append("</text>");
            }
        }
        sb.append("<text x='").append(left + nx * cw / 2).append("' y='").append(h + 32).append("' font-size='12' text-anchor='middle'>")
                .append(FleetReport.esc(a.path())).append("</text><text x='4' y='").append(h + 46).append("' font-size='12'>")
                .append(FleetReport.esc("rows: " + c.path())).append("</text></svg>\n<div class='cap'>Each cell a point; black bar: the"
                        + " boundary on that row (between the last cell holding in every run and the first failing in some run).</div>\n");
    }

    private static String metric(FleetExpectation e) {
        String t = e.text();
        int op = t.indexOf(e.op());
        return op > 0 ? t.substring(0, op).strip() : e.metric().name().toLowerCase(Locale.ROOT);
    }

    private static double round(double v) {
        double mag = Math.pow(10, Math.floor(Math.log10(Math.max(1e-9, Math.abs(v)))) - 1);
        return Math.ceil(v / mag) * mag;
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
