package dev.vitals.kubesim.fleet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vitals.kubesim.report.Axis;
import dev.vitals.kubesim.report.VerdictLine;
import java.util.List;
import java.util.Locale;

/**
 * Fleet reports: a terminal summary, JSON, and one self-contained HTML page (inline SVG, no
 * script, no external resource). Pure functions of the results; thread-safe.
 */
public final class FleetReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    /** Lanes drawn at most in the HTML page (the JSON has every lane). */
    static final int MAX_LANES = 400;

    private FleetReport() {
    }

    /**
     * What a p99 in these reports is: the upper edge of the log-binned histogram's bin where the 99th
     * percentile falls ({@link Recorder#BINS_PER_OCTAVE} bins per octave), an upper bound, not a
     * measurement; shown as {@code p99 ≤ N ms} in text, explained by this footnote in text and HTML and by
     * the {@code latencyPercentiles} field in JSON.
     */
    public static final String P99_FOOTNOTE = String.format(Locale.ROOT, "p99 ≤ N: N is the upper edge of the latency bin the 99th"
            + " percentile falls in (%d bins per octave), so the true p99 is at most N and above %.0f %% of N",
            Recorder.BINS_PER_OCTAVE, 100 * Recorder.LOWEST_TRUE_FRACTION);

    /** Adds {@code "latencyPercentiles":{"reported":"upperBinEdge","binsPerOctave":4,"lowestTrueFraction":0.8,"note":…}}. */
    static void percentiles(ObjectNode root) {
        root.putObject("latencyPercentiles").put("reported", "upperBinEdge").put("binsPerOctave", Recorder.BINS_PER_OCTAVE)
                .put("lowestTrueFraction", Recorder.LOWEST_TRUE_FRACTION).put("note", P99_FOOTNOTE);
    }

    /**
     * @param r a result
     * @return a few lines for a terminal: totals, then one line per expectation
     */
    public static String text(FleetResult r) {
        FleetResult.Totals t = r.totals();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s (%s engine): %d replicas, %.0f s after a %.1f s warm-up%n", r.label(), r.engine(),
                r.replicas(), r.durationSeconds(), r.warmupSeconds()));
        if (!r.routing().isEmpty()) {
            sb.append("  routing: ").append(r.routing()).append('\n');
        }
        sb.append(String.format(Locale.ROOT, "  restarts %d (%d of %d replicas), kills %d (%d distinct pods), seconds with zero endpoints %.1f, "
                + "fewest endpoints %d%n", t.restarts(), t.replicasRestarted(), r.replicas(), t.kills(), t.podsKilled(),
                t.zeroEndpointSeconds(), t.minEndpoints()));
        sb.append(String.format(Locale.ROOT, "  requests %d, failed %d (%.2f %%), attempts per request %.2f, latency mean %.0f ms, p99 ≤ %.0f ms%n",
                t.requests(), t.failed(), t.clientErrorPercent(), t.requests() == 0 ? 0 : (double) t.attempts() / t.requests(),
                t.meanLatencyMs(), t.p99LatencyMs()));
        sb.append("  (").append(P99_FOOTNOTE).append(")\n");
        sb.append(String.format(Locale.ROOT, "  severity: CrashLoopBackOff %.1f replica-s, not Ready %.1f replica-s, requests that found no endpoint %d, "
                + "most replicas down at once %d%n", t.crashLoopSeconds(), t.notReadySeconds(), t.noEndpointRequests(), t.maxDown()));
        if (allDownAtOnce(r)) {
            sb.append(String.format(Locale.ROOT, "  NOTE  all %d replicas were not Ready at the same moment: a probable checker"
                    + " fault (a shared dependency in readiness, the health endpoint itself) rather than the service%n", r.replicas()));
        }
        r.rollout().ifPresent(ro -> sb.append(rollout(ro)));
        sb.append(hotSpot(r));
        for (FleetResult.Check c : r.checks()) {
            sb.append("  ").append(VerdictLine.of(VerdictLine.Word.of(c.passed()), c.expectation(), "actual " + num(c.actual())))
                    .append('\n');
        }
        return sb.toString();
    }

    /** The most lanes named in the text report's peak in-flight line. */
    private static final int PEAKS_SHOWN = 5;
    /** The most holder changes printed per key. */
    private static final int MOVES_SHOWN = 12;

    /**
     * Where the load concentrated: the pods with the highest peak in flight, and per followed affinity
     * key which pod held it from when (the path of a pinned burst from pod to pod).
     *
     * @param r a result
     * @return lines of {@link #text}, empty when nothing was in flight and no key was followed
     */
    public static String hotSpot(FleetResult r) {
        StringBuilder sb = new StringBuilder();
        List<FleetResult.Lane> byPeak = new java.util.ArrayList<>(r.lanes());
        byPeak.removeIf(l -> l.peakInFlight() == 0);
        byPeak.sort((a, b) -> Long.compare(b.peakInFlight(), a.peakInFlight()));
        if (!byPeak.isEmpty()) {
            sb.append("  peak in flight (requests waiting or in service):");
            for (int i = 0; i < Math.min(PEAKS_SHOWN, byPeak.size()); i++) {
                FleetResult.Lane l = byPeak.get(i);
                sb.append(i == 0 ? " " : ", ").append('r').append(l.replica()).append(' ').append(l.peakInFlight())
                        .append(l.kills() > 0 ? " (killed " + l.kills() + "x)" : "");
            }
            sb.append(byPeak.size() > PEAKS_SHOWN ? ", ...\n" : "\n");
        }
        java.util.Map<String, List<FleetResult.Hold>> keys = new java.util.LinkedHashMap<>();
        for (FleetResult.Hold h : r.holds()) {
            keys.computeIfAbsent(h.clients() + "\u0000" + h.key(), k -> new java.util.ArrayList<>()).add(h);
        }
        for (List<FleetResult.Hold> hs : keys.values()) {
            FleetResult.Hold first = hs.get(0);
            sb.append(String.format(Locale.ROOT, "  key %d of '%s' held by", first.key(), first.clients()));
            for (int i = 0; i < Math.min(MOVES_SHOWN, hs.size()); i++) {
                sb.append(i == 0 ? " " : ", then ").append('r').append(hs.get(i).replica()).append(" from ")
                        .append(String.format(Locale.ROOT, "%.1f s", hs.get(i).at()));
            }
            sb.append(hs.size() > MOVES_SHOWN ? ", ... (" + hs.size() + " holders)\n" : "\n");
        }
        return sb.toString();
    }

    /**
     * Every replica lost readiness at once (issue 40): replicas fail one by one when the service
     * is overloaded, all together when what judges them broke — a dependency every readiness check
     * shares, or the checker itself.
     */
    static boolean allDownAtOnce(FleetResult r) {
        return r.replicas() >= 2 && r.totals().maxDown() >= r.replicas();
    }

    /**
     * The rolling update's part of the text report.
     *
     * @param ro the rollout's status at the end of the run
     * @return the rollout's lines of {@link #text}: the Progressing condition, then one line per version
     */
    public static String rollout(FleetResult.RolloutStatus ro) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "  rollout (maxSurge %d, maxUnavailable %d) from %.0f s: %s", ro.maxSurge(), ro.maxUnavailable(),
                ro.startedAt(), ro.condition()));
        if (ro.completedAt() >= 0) {
            sb.append(String.format(Locale.ROOT, ", complete at %.0f s (%.0f s)", ro.completedAt(), ro.completedAt() - ro.startedAt()));
        } else {
            sb.append(String.format(Locale.ROOT, ", not complete at the end: %d updated, %d available, %d old", ro.updatedReplicas(),
                    ro.availableReplicas(), ro.oldReplicas()));
        }
        if (ro.stalled()) {
            sb.append(String.format(Locale.ROOT, "; ProgressDeadlineExceeded at %.0f s", ro.deadlineExceededAt()));
        }
        sb.append('\n');
        for (FleetResult.Version v : ro.versions()) {
            sb.append(String.format(Locale.ROOT, "    %-3s version: attempts answered %d, failed on its pods %d (%.2f %%), latency mean %.0f ms, p99 ≤ %.0f ms%n",
                    v.name(), v.ok(), v.failed(), v.errorPercent(), v.meanLatencyMs(), v.p99LatencyMs()));
        }
        return sb.toString();
    }

    /**
     * @param runs results, e.g. naive and vitals of one scenario
     * @return a table with one row per run
     */
    public static String table(List<FleetResult> runs) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-34s %8s %9s %6s %9s %8s %9s %8s%n", "run", "replicas",
                "restarts", "kills", "zero-ep s", "fewest", "errors %", "p99≤ ms"));
        for (FleetResult r : runs) {
            FleetResult.Totals t = r.totals();
            sb.append(String.format(Locale.ROOT, "%-34s %8d %9d %6d %9.1f %8d %9.2f %8.0f%n", r.label(), r.replicas(), t.restarts(),
                    t.kills(), t.zeroEndpointSeconds(), t.minEndpoints(), t.clientErrorPercent(), t.p99LatencyMs()));
        }
        sb.append("(").append(P99_FOOTNOTE).append(")\n");
        return sb.toString();
    }

    /**
     * The JSON report: {@code {"passed":…,"runs":[{"scenario","wiring","engine","replicas","restarts","kills",
     * "replicasRestarted","zeroEndpointSeconds","minEndpoints","requests","failedRequests","clientErrorPercent",
     * "attempts","meanLatencyMs","p99LatencyMs","durationSeconds","warmupSeconds","passed","checks":[…],
     * "series":[…],"lanes":[…]}]}}}. {@code scenario} and {@code wiring} come from {@code scenarios} and
     * {@code wirings} (the replay's keys); a plain {@code vitals fleet} run uses its label and {@code -}.
     *
     * @param runs results
     * @param scenarios per run: the scenario name
     * @param wirings per run: the wiring ({@code naive}, {@code vitals}) or {@code -}
     * @return the JSON text
     */
    public static String json(List<FleetResult> runs, List<String> scenarios, List<String> wirings) {
        ObjectNode root = JSON.createObjectNode();
        root.put("passed", runs.stream().allMatch(FleetResult::passed));
        percentiles(root);
        ArrayNode arr = root.putArray("runs");
        for (int i = 0; i < runs.size(); i++) {
            ObjectNode n = arr.addObject();
            n.put("scenario", scenarios.get(i));
            n.put("wiring", wirings.get(i));
            runNode(n, runs.get(i));
        }
        return write(root);
    }

    private static String write(ObjectNode root) {
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void runNode(ObjectNode n, FleetResult r) {
        FleetResult.Totals t = r.totals();
        n.put("engine", r.engine());
        n.put("label", r.label());
        n.put("replicas", r.replicas());
        n.put("restarts", t.restarts());
        n.put("kills", t.kills());
        n.put("podsKilled", t.podsKilled());
        n.put("replicasRestarted", t.replicasRestarted());
        n.put("routing", r.routing());
        n.put("zeroEndpointSeconds", t.zeroEndpointSeconds());
        n.put("minEndpoints", t.minEndpoints());
        n.put("requests", t.requests());
        n.put("failedRequests", t.failed());
        n.put("clientErrorPercent", Recorder.round(t.clientErrorPercent()));
        n.put("attempts", t.attempts());
        n.put("meanLatencyMs", t.meanLatencyMs());
        n.put("p99LatencyMs", t.p99LatencyMs());
        n.put("crashLoopSeconds", t.crashLoopSeconds());
        n.put("notReadySeconds", t.notReadySeconds());
        n.put("noEndpointRequests", t.noEndpointRequests());
        n.put("maxDown", t.maxDown());
        if (allDownAtOnce(r)) {
            n.put("probableCheckerFault", true);
        }
        n.put("durationSeconds", r.durationSeconds());
        n.put("warmupSeconds", r.warmupSeconds());
        n.put("passed", r.passed());
        ArrayNode checks = n.putArray("checks");
        for (FleetResult.Check c : r.checks()) {
            checks.addObject().put("expect", c.expectation()).put("passed", c.passed()).put("actual", c.actual());
        }
        ArrayNode series = n.putArray("series");
        for (FleetResult.Second s : r.series()) {
            series.addObject().put("t", s.t()).put("endpoints", s.endpoints()).put("minEndpoints", s.minEndpoints())
                    .put("ready", s.ready()).put("ok", s.ok()).put("failed", s.failed()).put("attempts", s.attempts())
                    .put("p50Ms", s.p50Ms()).put("p99Ms", s.p99Ms());
        }
        r.rollout().ifPresent(ro -> {
            ObjectNode o = n.putObject("rollout").put("startedAt", ro.startedAt()).put("completedAt", ro.completedAt())
                    .put("deadlineExceededAt", ro.deadlineExceededAt()).put("condition", ro.condition())
                    .put("updatedReplicas", ro.updatedReplicas()).put("availableReplicas", ro.availableReplicas())
                    .put("oldReplicas", ro.oldReplicas()).put("maxSurge", ro.maxSurge()).put("maxUnavailable", ro.maxUnavailable());
            ArrayNode vs = o.putArray("versions");
            for (FleetResult.Version v : ro.versions()) {
                vs.addObject().put("version", v.name()).put("ok", v.ok()).put("failed", v.failed())
                        .put("errorPercent", Recorder.round(v.errorPercent())).put("meanLatencyMs", v.meanLatencyMs())
                        .put("p99LatencyMs", v.p99LatencyMs());
            }
        });
        ArrayNode holds = n.putArray("holds");
        for (FleetResult.Hold h : r.holds()) {
            holds.addObject().put("clients", h.clients()).put("key", h.key()).put("at", h.at()).put("replica", h.replica());
        }
        lanes(n.putArray("lanes"), r.lanes());
    }

    /** One object per lane: its counts, Ready intervals, kill and start times, and its instances' cgroup counters. */
    private static void lanes(ArrayNode lanes, List<FleetResult.Lane> all) {
        for (FleetResult.Lane l : all) {
            ObjectNode ln = lanes.addObject().put("replica", l.replica()).put("restarts", l.restarts()).put("kills", l.kills())
                    .put("crashLoopSeconds", l.crashLoopSeconds()).put("notReadySeconds", l.notReadySeconds())
                    .put("peakInFlight", l.peakInFlight());
            if (!l.version().isEmpty()) {
                ln.put("version", l.version());
            }
            ArrayNode ready = ln.putArray("ready");
            for (double[] iv : l.ready()) {
                ready.addArray().add(iv[0]).add(iv[1]);
            }
            ArrayNode k = ln.putArray("killTimes");
            l.killTimes().forEach(k::add);
            ArrayNode st = ln.putArray("startTimes");
            l.startTimes().forEach(st::add);
            if (!l.resources().isEmpty()) {
                usageNodes(ln.putArray("resources"), l.resources());
            }
        }
    }

    /** One object per instance: CPU used, periods and time throttled, OOM kills, exit, memory peak (null when unknown). */
    private static void usageNodes(ArrayNode res, List<dev.vitals.kubesim.runtime.ResourceLimits.InstanceUsage> usages) {
        for (dev.vitals.kubesim.runtime.ResourceLimits.InstanceUsage u : usages) {
            dev.vitals.kubesim.runtime.ResourceUsage x = u.usage();
            ObjectNode o = res.addObject().put("instance", u.instance()).put("cpuSeconds", Recorder.round(x.cpu().map(dev.vitals.kubesim.model.Durations::seconds).orElse(-1.0)))
                    .put("periods", x.periods()).put("throttledPeriods", x.throttledPeriods())
                    .put("throttledSeconds", Recorder.round(dev.vitals.kubesim.model.Durations.seconds(x.throttled()))).put("oomKills", x.oomKills())
                    .put("exitCode", u.exitCode()).put("reason", u.reason());
            if (x.memoryPeakBytes().isPresent()) {
                o.put("memoryPeakBytes", x.memoryPeakBytes().getAsLong());
            } else {
                o.putNull("memoryPeakBytes");
            }
        }
    }

    /**
     * A table of ensembles: per row the median of each figure and, where the runs differ, its
     * range in brackets.
     *
     * @param ensembles e.g. naive and vitals of one scenario
     * @return the table
     */
    public static String ensembleTable(List<FleetEnsemble> ensembles) {
        int labelW = 22;
        for (FleetEnsemble e : ensembles) {
            labelW = Math.max(labelW, e.label().length());
        }
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + labelW + "s %4s", "run", "runs"));
        int[] widths = new int[FleetEnsemble.FIGURES.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = FleetEnsemble.FIGURES.get(i).column().length();
            for (FleetEnsemble e : ensembles) {
                widths[i] = Math.max(widths[i], spread(e.spread(FleetEnsemble.FIGURES.get(i))).length());
            }
            sb.append(String.format(Locale.ROOT, " %" + widths[i] + "s", FleetEnsemble.FIGURES.get(i).column()));
        }
        sb.append('\n');
        for (FleetEnsemble e : ensembles) {
            sb.append(String.format(Locale.ROOT, "%-" + labelW + "s %4d", e.label(), e.runs().size()));
            for (int i = 0; i < widths.length; i++) {
                sb.append(String.format(Locale.ROOT, " %" + widths[i] + "s", spread(e.spread(FleetEnsemble.FIGURES.get(i)))));
            }
            sb.append('\n');
        }
        sb.append("(").append(P99_FOOTNOTE).append(")\n");
        return sb.toString();
    }

    /** @return {@code 84} when every run agreed, else {@code 84 [80-88]} (median [min-max]) */
    static String spread(FleetEnsemble.Spread s) {
        return s.fixed() ? num1(s.median()) : num1(s.median()) + " [" + num1(s.min()) + "-" + num1(s.max()) + "]";
    }

    private static String num1(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    /**
     * @param e an ensemble
     * @return one line per expectation: {@code PASS incident vitals: restarts == 0 (5 of 5 runs; actual 0)};
     *         an expectation that held in some runs only adds {@code unstable: 1 of 5 runs fails (seed 3)}
     */
    public static String verdicts(FleetEnsemble e) {
        StringBuilder sb = new StringBuilder();
        for (FleetEnsemble.Verdict v : e.verdicts()) {
            StringBuilder d = new StringBuilder();
            if (v.unstable()) {
                int failed = v.runs() - v.held();
                d.append("unstable: ").append(failed).append(" of ").append(v.runs()).append(failed == 1 ? " runs fails" : " runs fail")
                        .append(" (seed").append(v.failedSeeds().size() == 1 ? " " : "s ");
                for (int i = 0; i < v.failedSeeds().size(); i++) {
                    d.append(i == 0 ? "" : ", ").append(v.failedSeeds().get(i));
                }
                d.append(')');
            } else {
                d.append(v.held()).append(" of ").append(v.runs()).append(v.runs() == 1 ? " run" : " runs");
            }
            if (v.sharePercent() < 100) {
                d.append(", needs ").append(v.sharePercent()).append('%');
            }
            d.append("; actual ").append(spread(v.actual()));
            sb.append(VerdictLine.of(VerdictLine.Word.of(v.passed()), e.label() + ": " + v.expectation(), d.toString())).append('\n');
        }
        return sb.toString();
    }

    /**
     * The JSON report of ensembles: {@code {"passed", "ensembles":[{"scenario","wiring","label","runs","seeds",
     * "passed","figures":{"restarts":{"median","min","max"},…},"checks":[{"expect","held","runs","sharePercent",
     * "passed","unstable","actual":{…},"failedSeeds"}]}], "runs":[{…one per run, as {@link #json}, plus "seed"}]}}.
     *
     * @param ensembles the ensembles
     * @param scenarios per ensemble: the scenario name
     * @param wirings per ensemble: the wiring or {@code -}
     * @return the JSON text
     */
    public static String ensembleJson(List<FleetEnsemble> ensembles, List<String> scenarios, List<String> wirings) {
        ObjectNode root = JSON.createObjectNode();
        root.put("passed", ensembles.stream().allMatch(FleetEnsemble::passed));
        percentiles(root);
        ArrayNode ens = root.putArray("ensembles");
        ArrayNode arr = root.putArray("runs");
        for (int i = 0; i < ensembles.size(); i++) {
            FleetEnsemble e = ensembles.get(i);
            ObjectNode n = ens.addObject();
            n.put("scenario", scenarios.get(i)).put("wiring", wirings.get(i)).put("label", e.label()).put("runs", e.runs().size());
            ArrayNode seeds = n.putArray("seeds");
            e.seeds().forEach(seeds::add);
            n.put("passed", e.passed());
            ObjectNode figs = n.putObject("figures");
            for (FleetEnsemble.Figure f : FleetEnsemble.FIGURES) {
                FleetEnsemble.Spread s = e.spread(f);
                figs.putObject(f.key()).put("median", s.median()).put("min", s.min()).put("max", s.max());
            }
            ArrayNode checks = n.putArray("checks");
            for (FleetEnsemble.Verdict v : e.verdicts()) {
                ObjectNode c = checks.addObject().put("expect", v.expectation()).put("held", v.held()).put("runs", v.runs())
                        .put("sharePercent", v.sharePercent()).put("passed", v.passed()).put("unstable", v.unstable());
                c.putObject("actual").put("median", v.actual().median()).put("min", v.actual().min()).put("max", v.actual().max());
                ArrayNode fs = c.putArray("failedSeeds");
                v.failedSeeds().forEach(fs::add);
            }
            for (int k = 0; k < e.runs().size(); k++) {
                ObjectNode r = arr.addObject();
                r.put("scenario", scenarios.get(i)).put("wiring", wirings.get(i)).put("seed", e.seeds().get(k));
                runNode(r, e.runs().get(k));
            }
        }
        return write(root);
    }

    /**
     * One self-contained page for ensembles: the table of medians and ranges, the verdicts, per
     * ensemble the Ready endpoints of every run as a band (min to max over the runs, per second)
     * around the median, a table of each run's figures, then the run with the median restarts in
     * detail ({@link #html}'s charts).
     *
     * @param title the page title
     * @param ensembles the ensembles
     * @return the HTML text
     */
    public static String ensembleHtml(String title, List<FleetEnsemble> ensembles) {
        StringBuilder sb = new StringBuilder();
        head(sb, title);
        sb.append("<h1>").append(esc(title)).append("</h1>\n<pre>").append(esc(ensembleTable(ensembles))).append("\n");
        for (FleetEnsemble e : ensembles) {
            sb.append(esc(verdicts(e)));
        }
        sb.append("</pre>\n<p class='cap'>Each figure is the median over the runs, with [min-max] where the runs differ. ")
                .append("Runs differ only in their seed (arrivals, routing, start times).</p>\n");
        for (FleetEnsemble e : ensembles) {
            spreadChart(sb, e);
            runTable(sb, e);
        }
        for (FleetEnsemble e : ensembles) {
            FleetResult m = e.medianRun();
            sb.append("<h2>").append(esc(e.label())).append(": the median run (seed ").append(e.seeds().get(e.runs().indexOf(m)))
                    .append(") in detail</h2>\n");
            run(sb, m);
        }
        sb.append("</body></html>\n");
        return sb.toString();
    }

    private static void spreadChart(StringBuilder sb, FleetEnsemble e) {
        int w = 960;
        int left = 50;
        int h = 120;
        FleetResult first = e.runs().get(0);
        double d = Math.max(1, first.durationSeconds());
        int n = Math.max(1, first.replicas());
        int secs = first.series().size();
        sb.append("<h2>").append(esc(e.label())).append(": ").append(e.runs().size()).append(" runs</h2>\n");
        sb.append("<div class='cap'>Ready endpoints in the Service (of ").append(n)
                .append("): shaded from the fewest to the most over the runs, each second; line: the median</div>\n");
        sb.append(svgOpen(w, h + 20));
        axis(sb, left, w, h, 0, d);
        StringBuilder upper = new StringBuilder();
        StringBuilder lower = new StringBuilder();
        StringBuilder mid = new StringBuilder();
        double[] v = new double[e.runs().size()];
        for (int s = 0; s < secs; s++) {
            for (int k = 0; k < v.length; k++) {
                List<FleetResult.Second> ser = e.runs().get(k).series();
                v[k] = s < ser.size() ? ser.get(s).endpoints() : 0;
            }
            java.util.Arrays.sort(v);
            double x = left + s / d * (w - left);
            double med = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            upper.append(upper.length() == 0 ? "M" : "L").append(f(x)).append(',').append(f(h - v[v.length - 1] / n * (h - 10)));
            lower.insert(0, "L" + f(x) + "," + f(h - v[0] / n * (h - 10)));
            mid.append(mid.length() == 0 ? "M" : "L").append(f(x)).append(',').append(f(h - med / n * (h - 10)));
        }
        if (upper.length() > 0) {
            sb.append("<path d='").append(upper).append(lower).append("Z' fill='#aecbfa' stroke='none'/>");
            sb.append("<path d='").append(mid).append("' fill='none' stroke='#1a73e8' stroke-width='1.5'/>");
        }
        countLabels(sb, h, n, "");
        sb.append("</svg>\n");
    }

    private static void runTable(StringBuilder sb, FleetEnsemble e) {
        sb.append("<table><tr><th>seed</th>");
        for (FleetEnsemble.Figure f : FleetEnsemble.FIGURES) {
            sb.append("<th>").append(esc(f.column())).append("</th>");
        }
        sb.append("<th>verdict</th></tr>\n");
        for (int k = 0; k < e.runs().size(); k++) {
            FleetResult r = e.runs().get(k);
            sb.append("<tr><td>").append(e.seeds().get(k)).append("</td>");
            for (FleetEnsemble.Figure f : FleetEnsemble.FIGURES) {
                sb.append("<td>").append(num1(f.of().applyAsDouble(r.totals()))).append("</td>");
            }
            sb.append(r.passed() ? "<td class='pass'>PASS" : "<td class='fail'>FAIL").append("</td></tr>\n");
        }
        sb.append("</table>\n");
    }

    /**
     * One self-contained HTML page: per run, the totals and expectations, Ready endpoints over
     * time, client success rate and latency over time, and a lane per replica (Ready shaded green,
     * kills red, container starts blue; at most {@value #MAX_LANES} lanes drawn).
     *
     * @param title the page title
     * @param runs results
     * @return the HTML text
     */
    public static String html(String title, List<FleetResult> runs) {
        StringBuilder sb = new StringBuilder();
        head(sb, title);
        sb.append("<h1>").append(esc(title)).append("</h1>\n<pre>").append(esc(table(runs))).append("</pre>\n");
        for (FleetResult r : runs) {
            run(sb, r);
        }
        sb.append("</body></html>\n");
        return sb.toString();
    }

    static void head(StringBuilder sb, String title) {
        sb.append("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>").append(esc(title))
                .append("</title>\n<style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}"
                        + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
                        + "th:first-child,td:first-child{text-align:left}.pass{color:#176f2c}.fail{color:#b00020;font-weight:bold}"
                        + "svg{display:block;margin:6px 0 18px 0}.cap{font-size:13px;color:#555}</style></head><body>\n");
    }

    /**
     * The charts' shared time axis.
     *
     * @param w the chart's width, px
     * @param left the left margin (count labels), px
     * @param from the axis' start, seconds (minus the warm-up shown)
     * @param span the axis' length, seconds
     * @param end the run's length, seconds
     * @param warm the warm-up shown before 0 s, seconds
     */
    private record Frame(int w, int left, double from, double span, double end, double warm) {
        /** @return the x of time {@code t}, seconds */
        double x(double t) {
            return left + (t - from) / span * (w - left);
        }

        /** @return the width of one second, at least 1 px */
        double secondWidth() {
            return Math.max(1, (w - left) / span);
        }

        /** Opens a chart of {@link #CHART_H} with its time axis. */
        void open(StringBuilder sb) {
            sb.append(svgOpen(w, CHART_H + 20));
            axis(sb, left, w, CHART_H, from, span);
        }
    }

    /** The endpoints' and the requests' charts' height, px. */
    private static final int CHART_H = 120;

    private static void run(StringBuilder sb, FleetResult r) {
        double d = Math.max(1, r.durationSeconds());
        double warm = Math.min(r.warmupSeconds(), d / 4);
        double from = -warm;
        Frame fr = new Frame(960, 50, from, d - from, d, warm);
        sb.append("<h2>").append(esc(r.label())).append("</h2>\n<pre>").append(esc(text(r))).append("</pre>\n");
        endpointsChart(sb, r, fr);
        requestsChart(sb, r, fr);
        lanesChart(sb, r, fr);
        resources(sb, r.lanes());
    }

    /** Ready endpoints in the Service over time; red: seconds with none. */
    private static void endpointsChart(StringBuilder sb, FleetResult r, Frame fr) {
        int h = CHART_H;
        int n = Math.max(1, r.replicas());
        for (FleetResult.Second s : r.series()) {
            n = Math.max(n, (int) Math.ceil(s.endpoints())); // a rollout's surge goes above replicas
        }
        sb.append("<div class='cap'>Ready endpoints in the Service (of ").append(n)
                .append("); red: seconds with none</div>\n");
        fr.open(sb);
        StringBuilder path = new StringBuilder();
        for (FleetResult.Second s : r.series()) {
            double x = fr.x(s.t());
            double y = h - s.endpoints() / n * (h - 10);
            path.append(path.length() == 0 ? "M" : "L").append(f(x)).append(',').append(f(y));
            if (s.minEndpoints() == 0) {
                sb.append("<rect x='").append(f(x)).append("' y='0' width='").append(f(fr.secondWidth()))
                        .append("' height='").append(h).append("' fill='#f4c7c3'/>");
            }
        }
        sb.append("<path d='").append(path).append("' fill='none' stroke='#1a73e8' stroke-width='1.5'/>");
        countLabels(sb, h, n, "");
        sb.append("</svg>\n");
    }

    /** Client requests per second, succeeded and failed, and the p99 latency on a log scale. */
    private static void requestsChart(StringBuilder sb, FleetResult r, Frame fr) {
        int h = CHART_H;
        sb.append("<div class='cap'>Client requests per second: succeeded (green), failed after retries (red); "
                + "p99 latency (black, log scale, right axis; the upper edge of its latency bin)</div>\n");
        long max = 1;
        double maxLat = 1;
        for (FleetResult.Second s : r.series()) {
            max = Math.max(max, s.ok() + s.failed());
            maxLat = Math.max(maxLat, s.p99Ms());
        }
        fr.open(sb);
        double bw = fr.secondWidth();
        StringBuilder lat = new StringBuilder();
        double logMax = Math.log10(Math.max(10, maxLat));
        for (FleetResult.Second s : r.series()) {
            double x = fr.x(s.t());
            double okH = (double) s.ok() / max * (h - 10);
            double failH = (double) s.failed() / max * (h - 10);
            if (okH > 0) {
                sb.append("<rect x='").append(f(x)).append("' y='").append(f(h - okH)).append("' width='").append(f(bw))
                        .append("' height='").append(f(okH)).append("' fill='#81c995'/>");
            }
            if (failH > 0) {
                sb.append("<rect x='").append(f(x)).append("' y='").append(f(h - okH - failH)).append("' width='").append(f(bw))
                        .append("' height='").append(f(failH)).append("' fill='#d93025'/>");
            }
            if (s.p99Ms() > 0) {
                double y = h - Math.log10(Math.max(1, s.p99Ms())) / logMax * (h - 10);
                lat.append(lat.length() == 0 ? "M" : "L").append(f(x)).append(',').append(f(y));
            }
        }
        if (lat.length() > 0) {
            sb.append("<path d='").append(lat).append("' fill='none' stroke='#000' stroke-width='1'/>");
        }
        countLabels(sb, h, max, "/s");
        sb.append("<text x='").append(fr.w() - 60)
                .append("' y='14' font-size='11'>").append(f(maxLat)).append(" ms</text></svg>\n");
    }

    /** One lane per replica: Ready, kills, container starts, the hot spot and the rollout's marks. */
    private static void lanesChart(StringBuilder sb, FleetResult r, Frame fr) {
        int w = fr.w();
        int left = fr.left();
        double from = fr.from();
        double span = fr.span();
        double d = fr.end();
        double warm = fr.warm();
        List<FleetResult.Lane> lanes = r.lanes();
        int shown = Math.min(lanes.size(), MAX_LANES);
        int lh = shown <= 40 ? 14 : shown <= 120 ? 5 : 2;
        sb.append("<div class='cap'>One lane per replica").append(shown < lanes.size() ? " (first " + shown + " of " + lanes.size() + ")" : "")
                .append(": green Ready, red kill, blue container start; grey: warm-up (before 0 s)")
                .append(r.holds().isEmpty() ? "" : "; orange: the pod holding the first followed affinity key (the pinned burst "
                        + "moving from pod to pod)")
                .append(r.rollout().isPresent() ? "; a rollout: the old version's lanes, then the new version's (Ready in teal); "
                        + "dashed: rollout start, complete (green) or ProgressDeadlineExceeded (red)" : "").append("</div>\n");
        int lanesH = shown * lh + 20;
        sb.append(svgOpen(w, lanesH));
        sb.append("<rect x='").append(left).append("' y='0' width='").append(f(warm / span * (w - left))).append("' height='")
                .append(shown * lh).append("' fill='#eee'/>");
        for (int i = 0; i < shown; i++) {
            FleetResult.Lane l = lanes.get(i);
            int y = i * lh;
            if (lh >= 10) {
                sb.append("<text x='4' y='").append(y + lh - 3).append("' font-size='10'>")
                        .append(l.version().isEmpty() ? "r" + l.replica() : l.version() + " " + l.replica()).append("</text>");
            }
            for (double[] iv : l.ready()) {
                double a = Math.max(from, iv[0]);
                double b = Math.min(d, iv[1]);
                if (b <= a) {
                    continue;
                }
                sb.append("<rect x='").append(f(left + (a - from) / span * (w - left))).append("' y='").append(y + 1)
                        .append("' width='").append(f(Math.max(0.5, (b - a) / span * (w - left)))).append("' height='")
                        .append(Math.max(1, lh - 2)).append("' fill='").append(l.version().equals("new") ? "#12a4af" : "#34a853")
                        .append("' fill-opacity='0.55'/>");
            }
            hotSpotBars(sb, r, l.replica(), left, w, from, span, d, y, lh);
            for (double s : l.startTimes()) {
                mark(sb, left, w, from, span, s, y, lh, "#1a73e8");
            }
            for (double k : l.killTimes()) {
                mark(sb, left, w, from, span, k, y, lh, "#d93025");
            }
        }
        r.rollout().ifPresent(ro -> {
            vline(sb, left, w, from, span, ro.startedAt(), shown * lh, "#555");
            vline(sb, left, w, from, span, ro.completedAt(), shown * lh, "#176f2c");
            vline(sb, left, w, from, span, ro.deadlineExceededAt(), shown * lh, "#d93025");
        });
        axisLabels(sb, left, w, shown * lh, from, span);
        sb.append("</svg>\n");
    }

    /** An orange bar on a lane while its pod held the first followed affinity key (of the first keyed population). */
    private static void hotSpotBars(StringBuilder sb, FleetResult r, int replica, int left, int w, double from, double span,
            double end, int y, int lh) {
        if (r.holds().isEmpty()) {
            return;
        }
        FleetResult.Hold first = r.holds().get(0);
        List<FleetResult.Hold> path = new java.util.ArrayList<>();
        for (FleetResult.Hold h : r.holds()) {
            if (h.clients().equals(first.clients()) && h.key() == first.key()) {
                path.add(h);
            }
        }
        for (int i = 0; i < path.size(); i++) {
            if (path.get(i).replica() != replica) {
                continue;
            }
            double a = Math.max(from, path.get(i).at());
            double b = Math.min(end, i + 1 < path.size() ? path.get(i + 1).at() : end);
            if (b > a) {
                sb.append("<rect x='").append(f(left + (a - from) / span * (w - left))).append("' y='").append(y + Math.max(1, lh / 3))
                        .append("' width='").append(f(Math.max(0.5, (b - a) / span * (w - left)))).append("' height='")
                        .append(Math.max(1, lh / 3)).append("' fill='#f29900'/>");
            }
        }
    }

    /** The live engine's per-instance cgroup counters (resource limits applied), as a table; nothing without them. */
    private static void resources(StringBuilder sb, List<FleetResult.Lane> lanes) {
        if (lanes.stream().allMatch(l -> l.resources().isEmpty())) {
            return;
        }
        sb.append("<div class='cap'>Resources: each container instance's cgroup counters at its exit</div>\n<table><tr><th>replica</th>"
                + "<th>instance</th><th>CPU s</th><th>throttled periods</th><th>throttled s</th><th>memory peak MiB</th>"
                + "<th>exit</th></tr>\n");
        for (FleetResult.Lane l : lanes) {
            for (dev.vitals.kubesim.runtime.ResourceLimits.InstanceUsage u : l.resources()) {
                dev.vitals.kubesim.runtime.ResourceUsage x = u.usage();
                sb.append("<tr><td>").append(l.version().isEmpty() ? "r" + l.replica() : l.version() + " " + l.replica())
                        .append("</td><td>#").append(u.instance()).append("</td><td>")
                        .append(x.cpu().map(c -> String.format(java.util.Locale.ROOT, "%.2f", dev.vitals.kubesim.model.Durations.seconds(c))).orElse("n/a"))
                        .append("</td><td>").append(x.throttledPeriods()).append(" of ").append(x.periods()).append("</td><td>")
                        .append(String.format(java.util.Locale.ROOT, "%.2f", dev.vitals.kubesim.model.Durations.seconds(x.throttled()))).append("</td><td>")
                        .append(x.memoryPeakBytes().isPresent() ? String.format(java.util.Locale.ROOT, "%.1f",
                                x.memoryPeakBytes().getAsLong() / 1048576.0) : "n/a")
                        .append("</td><td>").append(u.exitCode()).append(' ').append(esc(u.reason())).append("</td></tr>\n");
            }
        }
        sb.append("</table>\n");
    }

    private static void mark(StringBuilder sb, int left, int w, double from, double span, double t, int y, int lh, String color) {
        if (t < from || t > from + span) {
            return;
        }
        double x = left + (t - from) / span * (w - left);
        sb.append("<rect x='").append(f(x - 1)).append("' y='").append(y).append("' width='2' height='").append(Math.max(1, lh))
                .append("' fill='").append(color).append("'/>");
    }

    /** A dashed vertical line at scenario second {@code t} (nothing when t is negative: not reached). */
    private static void vline(StringBuilder sb, int left, int w, double from, double span, double t, int h, String color) {
        if (t < 0) {
            return;
        }
        double x = left + (t - from) / span * (w - left);
        sb.append("<line x1='").append(f(x)).append("' x2='").append(f(x)).append("' y1='0' y2='").append(h)
                .append("' stroke='").append(color).append("' stroke-dasharray='4,3'/>");
    }

    static String svgOpen(int w, int h) {
        return "<svg xmlns='http://www.w3.org/2000/svg' width='" + w + "' height='" + h + "' viewBox='0 0 " + w + " " + h + "'>";
    }

    private static void axis(StringBuilder sb, int left, int w, int h, double from, double span) {
        sb.append("<line x1='").append(left).append("' y1='").append(h).append("' x2='").append(w).append("' y2='").append(h)
                .append("' stroke='#999'/>");
        axisLabels(sb, left, w, h, from, span);
    }

    private static void axisLabels(StringBuilder sb, int left, int w, int h, double from, double span) {
        for (Axis.Tick t : Axis.time(from, from + span, 10)) {
            double x = left + (t.value() - from) / span * (w - left);
            // the last label ends at the chart's edge rather than past it
            String anchor = t.value() >= from + span ? "end" : "middle";
            sb.append("<text x='").append(f(x)).append("' y='").append(h + 14).append("' font-size='10' text-anchor='").append(anchor)
                    .append("'>").append(t.label()).append("</text>");
        }
    }

    /** The labels of a count axis from 0 (bottom, at {@code h}) to {@code max} (at 10 px from the top), as the charts scale it. */
    private static void countLabels(StringBuilder sb, int h, double max, String unit) {
        for (Axis.Tick t : Axis.count(max, 5)) {
            double y = h - t.value() / max * (h - 10);
            sb.append("<text x='4' y='").append(f(Math.max(11, Math.min(h, y + 4)))).append("' font-size='11'>").append(t.label()).append(unit)
                    .append("</text>");
        }
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;").replace("\"", "&quot;");
    }
}
