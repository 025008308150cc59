package dev.vitals.kubesim.report;

import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vitals.kubesim.model.Resources;
import dev.vitals.kubesim.runtime.ResourceLimits;
import dev.vitals.kubesim.runtime.ResourceUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link SimulationResult}: a terminal timeline line per event, a summary, JSON and a
 * self-contained HTML page with an SVG timeline. Stateless and thread-safe.
 */
public final class Reports {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Reports() {
    }

    /**
     * Renders one event as it happens.
     *
     * @param e the event
     * @return one timeline line for the terminal
     */
    public static String line(SimEvent e) {
        String what;
        switch (e.type()) {
            case PROBE: {
                ProbeResult r = e.result().orElseThrow();
                String mark = r == ProbeResult.ERROR ? "!" : r.counted() == ProbeResult.SUCCESS ? "+" : "-";
                what = String.format(Locale.ROOT, "%-10s %s %-8s %6.0f ms  %s", e.probe().map(ProbeType::label).orElse(""),
                        mark, r.label(), e.latency().map(d -> d.toNanos() / 1e6).orElse(0.0), shorten(e.detail(), 90));
                break;
            }
            case KILL:
                what = String.format(Locale.ROOT, "%-10s %s", "KILL", e.detail());
                break;
            case READY:
                what = String.format(Locale.ROOT, "%-10s %s", "READY", e.detail());
                break;
            case NOT_READY:
                what = String.format(Locale.ROOT, "%-10s %s", "NOT READY", e.detail());
                break;
            default:
                what = String.format(Locale.ROOT, "%-10s %s", e.type().label(), e.detail());
        }
        return String.format(Locale.ROOT, "%8.2fs  #%d  %s", seconds(e.at()), e.instance(), what);
    }

    private static String shorten(String s, int max) {
        String one = s.replace('\n', ' ').replace('\r', ' ');
        return one.length() <= max ? one : one.substring(0, max - 1) + "…";
    }

    /**
     * Renders the summary printed at the end of a run.
     *
     * @param r the simulation's result
     * @param pod the simulated pod (its probes' settings)
     * @return the multi-line summary
     */
    public static String summary(SimulationResult r, PodSpec pod) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Summary (%.0fs of container '%s')%n", seconds(r.duration()), pod.containerName()));
        sb.append(String.format(Locale.ROOT, "  restarts          %d (kills %d%s)%n", r.restarts(), r.kills(),
                r.killsAt().isEmpty() ? "" : " at " + times(r.killsAt())));
        sb.append(String.format(Locale.ROOT, "  not ready         %.1fs of %.0fs%s%n", seconds(r.notReady()), seconds(r.duration()),
                r.readyIntervalsText()));
        sb.append(resources(r));
        // issue 40: what the container left behind and the runtime reaped (Simulation's note)
        r.events().stream().filter(e -> e.type() == SimEvent.Type.ACTION && e.detail().startsWith("container: "))
                .findFirst().ifPresent(e -> sb.append("  reaped            ").append(e.detail().substring("container: ".length()))
                        .append(System.lineSeparator()));
        for (ProbeType t : ProbeType.values()) {
            if (pod.probe(t).isPresent()) {
                SimulationResult.ProbeStats s = r.stats(t);
                sb.append(String.format(Locale.ROOT, "  %-10s %4d probes: %d ok%s, %d failed, %d errors; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                        t.label(), s.count(), s.successes(), s.warnings() > 0 ? " (" + s.warnings() + " warnings)" : "",
                        s.failures(), s.errors(), s.p50Ms(), s.p99Ms(), s.maxMs()));
                sb.append("             ").append(pod.probe(t).get().describe()).append('\n');
            }
        }
        if (!r.checks().isEmpty()) {
            sb.append("Expectations\n");
            for (Expectation.Check c : r.checks()) {
                sb.append("  ").append(VerdictLine.of(c, "")).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * @param r the simulation's result
     * @return the resources lines of the summary: the limits and how they were applied (or
     *         "limits not applied" and why), then each instance's CPU used, periods and time
     *         throttled, memory peak against the limit and exit reason; empty without resources
     */
    public static String resources(SimulationResult r) {
        if (r.limits().isEmpty()) {
            return "";
        }
        ResourceLimits.Report l = r.limits().get();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "  resources         %s: %s%n", l.resources().describe(), l.status()));
        for (ResourceLimits.InstanceUsage u : l.instances()) {
            ResourceUsage x = u.usage();
            String mem = x.memoryPeakBytes().isPresent() ? String.format(Locale.ROOT, ", memory peak %.1fMi%s",
                    x.memoryPeakBytes().getAsLong() / 1048576.0, l.resources().memoryLimitBytes().isPresent()
                            ? " of " + Resources.memory(l.resources().memoryLimitBytes().getAsLong()) : "") : "";
            sb.append(String.format(Locale.ROOT, "  instance #%-7d cpu %s, throttled %d of %d periods (%.2fs)%s; exit %d %s%n",
                    u.instance(), x.cpu().map(c -> String.format(Locale.ROOT, "%.2fs", seconds(c))).orElse("n/a"),
                    x.throttledPeriods(), x.periods(), seconds(x.throttled()), mem, u.exitCode(), u.reason()));
        }
        return sb.toString();
    }

    /**
     * Adds the run's {@code resources} object (limits, applied, status, each instance's counters)
     * to {@code root}; nothing without resources.
     *
     * @param r the result
     * @param root the JSON object to add it to
     */
    public static void resourcesJson(SimulationResult r, ObjectNode root) {
        if (r.limits().isEmpty()) {
            return;
        }
        ResourceLimits.Report l = r.limits().get();
        ObjectNode n = root.putObject("resources");
        l.resources().cpuLimitMillis().ifPresent(v -> n.put("cpuLimitMillis", v));
        l.resources().cpuRequestMillis().ifPresent(v -> n.put("cpuRequestMillis", v));
        l.resources().memoryLimitBytes().ifPresent(v -> n.put("memoryLimitBytes", v));
        n.put("applied", l.applied());
        n.put("status", l.status());
        ArrayNode inst = n.putArray("instances");
        for (ResourceLimits.InstanceUsage u : l.instances()) {
            ResourceUsage x = u.usage();
            ObjectNode i = inst.addObject();
            i.put("instance", u.instance());
            i.put("exitCode", u.exitCode());
            i.put("reason", u.reason());
            if (x.cpu().isPresent()) {
                i.put("cpuSeconds", round(seconds(x.cpu().get()), 3));
            }
            i.put("periods", x.periods());
            i.put("throttledPeriods", x.throttledPeriods());
            i.put("throttledSeconds", round(seconds(x.throttled()), 3));
            x.memoryPeakBytes().ifPresent(v -> i.put("memoryPeakBytes", v));
            i.put("oomKills", x.oomKills());
        }
    }

    private static String times(List<java.time.Duration> ts) {
        List<String> out = new ArrayList<>();
        for (java.time.Duration t : ts) {
            out.add(String.format(Locale.ROOT, "%.1fs", seconds(t)));
        }
        return String.join(", ", out);
    }

    /** The result's API speaks {@code Duration}; the report formats print seconds: converted here, at the edge. */
    private static double seconds(java.time.Duration d) {
        return dev.vitals.kubesim.model.Durations.seconds(d);
    }

    /** @return the Ready periods as {@code [from, to]} seconds */
    private static List<double[]> readyIntervals(SimulationResult r) {
        return r.readyPeriods().stream().map(i -> new double[] {seconds(i.from()), seconds(i.to())}).toList();
    }

    private static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }

    /**
     * The JSON report. Top level: {@code restarts}, {@code kills}, {@code durationSeconds},
     * {@code notReadySeconds}, {@code readyIntervals}, {@code probes}, {@code events} (types
     * start, probe, ready, not-ready, kill, exit; probe events have probe, result
     * success/failure, latencyMs, detail), {@code notes} (started, backoff, verdict, action,
     * probe-error), {@code expectations}, {@code passed}.
     *
     * @param r the simulation's result
     * @param pod the simulated pod (its probes' settings)
     * @return the JSON text
     */
    public static String json(SimulationResult r, PodSpec pod) {
        ObjectNode root = JSON.createObjectNode();
        root.put("container", pod.containerName());
        root.put("target", r.target());
        root.put("durationSeconds", seconds(r.duration()));
        root.put("restarts", r.restarts());
        root.put("kills", r.kills());
        root.put("notReadySeconds", round(seconds(r.notReady()), 3));
        ArrayNode ready = root.putArray("readyIntervals");
        for (double[] i : readyIntervals(r)) {
            ready.addArray().add(round(i[0], 3)).add(round(i[1], 3));
        }
        ObjectNode probes = root.putObject("probes");
        for (ProbeType t : ProbeType.values()) {
            pod.probe(t).ifPresent(spec -> {
                SimulationResult.ProbeStats s = r.stats(t);
                ObjectNode p = probes.putObject(t.label());
                p.put("spec", spec.describe());
                p.put("count", s.count());
                p.put("successes", s.successes());
                p.put("warnings", s.warnings());
                p.put("failures", s.failures());
                p.put("errors", s.errors());
                p.put("p50Ms", round(s.p50Ms(), 3));
                p.put("p99Ms", round(s.p99Ms(), 3));
                p.put("maxMs", round(s.maxMs(), 3));
            });
        }
        resourcesJson(r, root);
        events(r, root.putArray("events"), root.putArray("notes"));
        ArrayNode ex = root.putArray("expectations");
        for (Expectation.Check c : r.checks()) {
            ex.addObject().put("expect", c.expectation()).put("passed", c.passed()).put("actual", c.actual());
        }
        root.put("passed", r.passed());
        try {
            return JSON.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The core events (start, probe, ready, not-ready, kill, exit) and the notes (the others, and probe errors). */
    private static void events(SimulationResult r, ArrayNode events, ArrayNode notes) {
        for (SimEvent e : r.events()) {
            boolean error = e.type() == SimEvent.Type.PROBE && e.result().orElse(null) == ProbeResult.ERROR;
            ObjectNode n = (e.type().core() && !error ? events : notes).addObject();
            n.put("t", round(seconds(e.at()), 3));
            n.put("type", error ? "probe-error" : e.type().label());
            n.put("instance", e.instance());
            e.probe().ifPresent(p -> n.put("probe", p.label()));
            if (e.type() == SimEvent.Type.PROBE) {
                ProbeResult res = e.result().orElseThrow();
                n.put("result", error ? "error" : res.counted().label());
                n.put("latencyMs", round(e.latency().map(d -> d.toNanos() / 1e6).orElse(0.0), 3));
                n.put("detail", res == ProbeResult.WARNING ? "warning: " + e.detail() : e.detail());
            } else {
                e.result().ifPresent(x -> n.put("result", x.label()));
                n.put("detail", e.detail());
                if (e.type() == SimEvent.Type.EXIT) {
                    // the container status reason the runtime gives (OOMKilled, Error, Completed)
                    r.limits().flatMap(l -> l.instance(e.instance())).ifPresent(u -> n.put("reason", u.reason()));
                }
            }
        }
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /**
     * Renders the HTML report.
     *
     * @param r the simulation's result
     * @param pod the simulated pod (its probes' settings)
     * @return a self-contained HTML page: SVG timeline (a lane per probe, Ready shading, restarts) and the
     *        summary
     */
    public static String html(SimulationResult r, PodSpec pod) {
        return render(r, pod, null);
    }

    /**
     * What {@code vitals simulate} judged a run by, beyond the scenario's expectations (which the
     * result carries), and its verdict: what the text report prints after the summary.
     *
     * @param expect the {@code --expect} expectations' outcomes
     * @param defaults the default expectations' outcomes ({@link Verdict#defaults}); empty when
     *        the scenario or {@code --expect} gave expectations
     * @param verdict the run's verdict, as its closing {@code verdict:} line
     */
    public record Judged(List<Expectation.Check> expect, List<Expectation.Check> defaults, VerdictLine.Word verdict) {
        /**
         * Copies the lists.
         *
         * @param expect the {@code --expect} expectations' outcomes
         * @param defaults the default expectations' outcomes
         * @param verdict the run's verdict
         * @throws NullPointerException if a component is null
         */
        public Judged {
            expect = List.copyOf(expect);
            defaults = List.copyOf(defaults);
            java.util.Objects.requireNonNull(verdict, "verdict");
        }
    }

    /**
     * Renders the HTML report of a judged run: {@link #html(SimulationResult, PodSpec)} with the
     * verdict in the headline and an Expectations table (verdict word, expectation, actual value,
     * source: scenario, {@code --expect} or default), the same outcomes the text report prints.
     *
     * @param r the simulation's result
     * @param pod the simulated pod (its probes' settings)
     * @param judged what the run was judged by and its verdict
     * @return a self-contained HTML page
     */
    public static String html(SimulationResult r, PodSpec pod, Judged judged) {
        return render(r, pod, java.util.Objects.requireNonNull(judged, "judged"));
    }

    private static String expectationsHtml(SimulationResult r, Judged j) {
        StringBuilder sb = new StringBuilder("<h2>Expectations</h2>\n<table class='expectations'>"
                + "<tr><th></th><th>expectation</th><th>actual</th><th>source</th></tr>\n");
        appendChecks(sb, r.checks(), "scenario");
        appendChecks(sb, j.expect(), "--expect");
        appendChecks(sb, j.defaults(), "default (no scenario or --expect expectations given)");
        if (r.checks().isEmpty() && j.expect().isEmpty() && j.defaults().isEmpty()) {
            sb.append("<tr><td colspan='4'>none</td></tr>\n");
        }
        return sb.append("</table>\n").toString();
    }

    private static void appendChecks(StringBuilder sb, List<Expectation.Check> checks, String source) {
        for (Expectation.Check c : checks) {
            VerdictLine.Word w = VerdictLine.Word.of(c.passed());
            sb.append("<tr><td class='").append(w == VerdictLine.Word.PASS ? "pass" : "fail").append("'>").append(w).append("</td><td>")
                    .append(esc(c.expectation())).append("</td><td>").append(esc(c.actual())).append("</td><td>").append(esc(source))
                    .append("</td></tr>\n");
        }
    }

    /** The timeline's geometry: left margin, width, lane height and top margin, px. */
    private static final int LEFT = 110;
    private static final int WIDTH = 1000;
    private static final int LANE_H = 34;
    private static final int TOP = 30;

    /**
     * The timeline's lanes and time axis.
     *
     * @param lanes the probes the pod has, one lane each between the container's and Ready's
     * @param rows the lanes, container and Ready included
     * @param dur the run's length, seconds (at least 1 ms)
     * @param x the x of a time, seconds (clamped to the run)
     */
    private record Timeline(List<ProbeType> lanes, int rows, double dur, java.util.function.DoubleUnaryOperator x) {
    }

    private static String render(SimulationResult r, PodSpec pod, Judged judged) {
        List<ProbeType> lanes = new ArrayList<>();
        for (ProbeType t : ProbeType.values()) {
            if (pod.probe(t).isPresent()) {
                lanes.add(t);
            }
        }
        int left = LEFT;
        int width = WIDTH;
        int rows = lanes.size() + 2; // container + probes + ready
        int height = TOP + rows * LANE_H + 40;
        double dur = Math.max(seconds(r.duration()), 1e-3);
        Timeline t = new Timeline(lanes, rows, dur, v -> left + (Math.min(Math.max(v, 0), dur) / dur) * width);
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' font-size='12'>",
                left + width + 20, height));
        grid(svg, r, t);
        containers(svg, r, t);
        probes(svg, r, t);
        readyLane(svg, r, t);
        svg.append("</svg>");
        return page(r, pod, judged, svg, eventRows(r));
    }

    /** Ready shading across all lanes, the time axis and the lane labels. */
    private static void grid(StringBuilder svg, SimulationResult r, Timeline t) {
        int left = LEFT;
        int width = WIDTH;
        int laneH = LANE_H;
        int top = TOP;
        int rows = t.rows();
        java.util.function.DoubleUnaryOperator x = t.x();
        double dur = t.dur();
        List<ProbeType> lanes = t.lanes();
        // ready shading across all lanes
        for (double[] i : readyIntervals(r)) {
            svg.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#2e9e44' fill-opacity='0.08'/>",
                    x.applyAsDouble(i[0]), top, Math.max(0.5, x.applyAsDouble(i[1]) - x.applyAsDouble(i[0])), rows * laneH));
        }
        // axis
        for (Axis.Tick tick : Axis.time(0, dur, 13)) {
            double px = x.applyAsDouble(tick.value());
            svg.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#ddd'/>", px, top, px, top + rows * laneH));
            svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' text-anchor='middle' fill='#555'>%s</text>", px,
                    top + rows * laneH + 16, tick.label()));
        }
        // lane labels
        List<String> names = new ArrayList<>();
        names.add("container");
        for (ProbeType p : lanes) {
            names.add(p.label());
        }
        names.add("Ready");
        for (int i = 0; i < names.size(); i++) {
            int y = top + i * laneH;
            svg.append(String.format(Locale.ROOT, "<text x='8' y='%d' font-weight='bold'>%s</text>", y + 21, names.get(i)));
            svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#eee'/>", left, y + laneH, left + width, y + laneH));
        }
    }

    /** Each container instance's bar, its restarts and its kills. */
    private static void containers(StringBuilder svg, SimulationResult r, Timeline t) {
        int laneH = LANE_H;
        int top = TOP;
        int rows = t.rows();
        java.util.function.DoubleUnaryOperator x = t.x();
        double dur = t.dur();
        double runStart = -1;
        int inst = 0;
        for (SimEvent e : r.events()) {
            if (e.type() == SimEvent.Type.START) {
                runStart = seconds(e.at());
                inst = e.instance();
                if (e.instance() > 1) {
                    double px = x.applyAsDouble(seconds(e.at()));
                    svg.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#1f5fbf' stroke-dasharray='4 3'><title>restart at %.2fs (instance #%d)</title></line>",
                            px, top, px, top + rows * laneH, seconds(e.at()), e.instance()));
                    svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' fill='#1f5fbf' font-size='10'>restart #%d</text>", px + 3, top - 4, e.instance() - 1));
                }
            } else if (e.type() == SimEvent.Type.EXIT && runStart >= 0) {
                svg.append(bar(x.applyAsDouble(runStart), x.applyAsDouble(seconds(e.at())), top, inst, runStart, seconds(e.at())));
                runStart = -1;
            } else if (e.type() == SimEvent.Type.KILL) {
                double px = x.applyAsDouble(seconds(e.at()));
                svg.append(String.format(Locale.ROOT, "<path d='M%.1f %d l6 -10 l-12 0 z' fill='#c62828'><title>%.2fs kill: %s</title></path>",
                        px, top + 12, seconds(e.at()), esc(e.detail())));
                svg.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#c62828'/>", px, top, px, top + rows * laneH));
            }
        }
        if (runStart >= 0) {
            svg.append(bar(x.applyAsDouble(runStart), x.applyAsDouble(dur), top, inst, runStart, dur));
        }
    }

    /** Each probe: a dot at its answer, a line for its latency, coloured by its result. */
    private static void probes(StringBuilder svg, SimulationResult r, Timeline t) {
        int laneH = LANE_H;
        int top = TOP;
        java.util.function.DoubleUnaryOperator x = t.x();
        List<ProbeType> lanes = t.lanes();
        for (SimEvent e : r.events()) {
            if (e.type() != SimEvent.Type.PROBE) {
                continue;
            }
            int lane = lanes.indexOf(e.probe().orElseThrow()) + 1;
            ProbeResult res = e.result().orElseThrow();
            String color = res == ProbeResult.ERROR ? "#888" : res == ProbeResult.WARNING ? "#e0a800"
                    : res.counted() == ProbeResult.SUCCESS ? "#2e9e44" : "#c62828";
            double lat = e.latency().map(d -> d.toNanos() / 1e9).orElse(0.0);
            double y = top + lane * laneH + laneH / 2.0;
            double x1 = x.applyAsDouble(seconds(e.at()) - lat);
            double x2 = x.applyAsDouble(seconds(e.at()));
            if (x2 - x1 > 2) {
                svg.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' stroke-width='3' stroke-opacity='0.4'/>",
                        x1, y, x2, y, color));
            }
            svg.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='5' fill='%s'><title>%.2fs %s %s, %.0f ms: %s</title></circle>",
                    x2, y, color, seconds(e.at()), e.probe().get().label(), res.label(), lat * 1000, esc(shorten(e.detail(), 200))));
        }
    }

    /** The Ready lane: not ready in red, each Ready interval in green. */
    private static void readyLane(StringBuilder svg, SimulationResult r, Timeline t) {
        int left = LEFT;
        int width = WIDTH;
        int laneH = LANE_H;
        int top = TOP;
        java.util.function.DoubleUnaryOperator x = t.x();
        List<ProbeType> lanes = t.lanes();
        int ry = top + (lanes.size() + 1) * laneH;
        svg.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='%d' height='%d' fill='#f3c4c4'><title>not ready</title></rect>",
                left, ry + 8, width, laneH - 16));
        for (double[] i : readyIntervals(r)) {
            svg.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#2e9e44'><title>ready %.2fs..%.2fs</title></rect>",
                    x.applyAsDouble(i[0]), ry + 8, Math.max(0.5, x.applyAsDouble(i[1]) - x.applyAsDouble(i[0])), laneH - 16, i[0], i[1]));
        }
    }

    /** @return the events table's rows, successful probes omitted */
    private static StringBuilder eventRows(SimulationResult r) {
        StringBuilder rows2 = new StringBuilder();
        for (SimEvent e : r.events()) {
            if (e.type() == SimEvent.Type.PROBE && e.result().orElse(null) == ProbeResult.SUCCESS) {
                continue;
            }
            rows2.append(String.format(Locale.ROOT, "<tr><td>%.2f</td><td>#%d</td><td>%s</td><td>%s</td></tr>%n", seconds(e.at()), e.instance(),
                    esc(e.type().label() + e.probe().map(p -> " " + p.label()).orElse("") + e.result().map(x2 -> " " + x2.label()).orElse("")),
                    esc(shorten(e.detail(), 300))));
        }
        return rows2;
    }

    private static String page(SimulationResult r, PodSpec pod, Judged judged, StringBuilder svg, StringBuilder rows2) {
        return "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>vitals simulate: " + esc(pod.containerName())
                + "</title><style>body{font-family:sans-serif;margin:24px;color:#222}pre{background:#f6f6f6;padding:12px}"
                + "table{border-collapse:collapse;font-size:12px}td{border-bottom:1px solid #eee;padding:2px 8px;vertical-align:top}"
                + ".legend span{display:inline-block;margin-right:16px}.pass{color:#2e9e44;font-weight:bold}"
                + ".fail{color:#c62828;font-weight:bold}.verdict{font-size:18px}</style></head><body>\n"
                + "<h1>vitals simulate: container " + esc(pod.containerName()) + "</h1>\n"
                + "<p>" + esc(r.target()) + "</p>\n"
                + (judged == null ? "" : "<p class='verdict " + (judged.verdict() == VerdictLine.Word.PASS ? "pass" : "fail") + "'>"
                        + VerdictLine.overall(judged.verdict()) + "</p>\n")
                + String.format(Locale.ROOT, "<p><b>%d restarts</b>, not ready %.1fs of %.0fs%s</p>%n", r.restarts(), seconds(r.notReady()),
                        seconds(r.duration()), judged != null || r.checks().isEmpty() ? "" : r.passed()
                                ? ", <b style='color:#2e9e44'>expectations hold</b>" : ", <b style='color:#c62828'>expectations failed</b>")
                + "<div class='legend'><span style='color:#2e9e44'>&#9679; success</span><span style='color:#e0a800'>&#9679; warning (3xx)</span>"
                + "<span style='color:#c62828'>&#9679; failure</span><span style='color:#888'>&#9679; error (discarded)</span>"
                + "<span style='color:#c62828'>&#9660; kill</span><span style='color:#1f5fbf'>- - restart</span>"
                + "<span style='background:#2e9e44;color:#fff;padding:0 4px'>Ready</span></div>\n"
                + svg + "\n" + (judged == null ? "" : expectationsHtml(r, judged))
                + "<h2>Summary</h2>\n<pre>" + esc(summary(r, pod)) + "</pre>\n"
                + "<h2>Events (successful probes omitted)</h2>\n<table>" + rows2 + "</table>\n</body></html>\n";
    }

    private static String bar(double x1, double x2, int top, int inst, double from, double to) {
        return String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='%d' rx='3' fill='#1f5fbf' fill-opacity='0.25' stroke='#1f5fbf'><title>instance #%d running %.2fs..%.2fs</title></rect>"
                + "<text x='%.1f' y='%d' font-size='10' fill='#1f5fbf'>#%d</text>",
                x1, top + 9, Math.max(1, x2 - x1), 16, inst, from, to, x1 + 3, top + 21, inst);
    }
}
