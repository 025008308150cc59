package dev.vitals.kubesim.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vitals.kubesim.report.Reports;
import dev.vitals.kubesim.report.VerdictLine;
import dev.vitals.kubesim.result.Expectation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The replay's outputs: the side-by-side table, one verdict line per scenario, the JSON report
 * and the HTML pages. Pure functions of the runs; thread-safe.
 */
public final class ReplayReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final Map<String, String> CLAIMS = Map.of(
            "incident", "naive restarts under the export load, Vitals does not",
            "db-outage", "naive restarts for a remote outage; Vitals only stops taking traffic, then recovers",
            "slow-start", "naive crash-loops on a slow start; Vitals waits it out behind its startup probe",
            "stall", "a short freeze restarts neither; deadlocked workers restart both",
            "cpu-limit", "under a 500m CPU limit, naive restarts under the export load, Vitals does not");

    /** The labels of a run's figures, in the order of {@link #figures}: one set for the table, the index and the run pages. */
    private static final List<String> FIGURES = List.of("restarts", "not ready after Ready", "probe failures", "liveness p99");

    private ReplayReport() {
    }

    /**
     * A run's figures as every replay report prints them (terminal table, index page, run page):
     * the same figures, the same rounding, under the labels of {@link #FIGURES}.
     *
     * @param r the run
     * @return restarts; seconds not ready after the first Ready ({@code 12.3 s}); liveness and
     *         readiness probe failures; liveness p99 ({@code 812.4 ms}, as the summary rounds it)
     */
    static List<String> figures(RunRecord r) {
        return List.of(Integer.toString(r.restarts()), String.format(Locale.ROOT, "%.1f s", r.notReadySeconds()),
                Integer.toString(r.probeFailures()), String.format(Locale.ROOT, "%.1f ms", r.livenessP99Ms()));
    }

    /**
     * @param r the run
     * @return its verdict as the verdict lines word it
     */
    static VerdictLine.Word word(RunRecord r) {
        return VerdictLine.Word.valueOf(r.verdict().name());
    }

    private static String verdictCell(RunRecord r) {
        VerdictLine.Word w = word(r);
        return w == VerdictLine.Word.FAIL ? "<b style='color:#c62828'>FAIL</b>"
                : w == VerdictLine.Word.SKIP ? "SKIP: " + esc(r.inconclusive().orElse("")) : "PASS";
    }

    private static String figureCells(RunRecord r) {
        StringBuilder sb = new StringBuilder();
        for (String f : figures(r)) {
            sb.append("<td>").append(f).append("</td>");
        }
        return sb.toString();
    }

    private static String figureHeaders() {
        StringBuilder sb = new StringBuilder();
        for (String f : FIGURES) {
            sb.append("<th>").append(f).append("</th>");
        }
        return sb.toString();
    }

    /**
     * Renders the side-by-side table for the terminal.
     *
     * @param runs the runs, in the order they ran
     * @return the table: scenario, wiring, restarts, seconds not ready, probe failures, liveness p99
     */
    public static String table(List<RunRecord> runs) {
        StringBuilder sb = new StringBuilder();
        String fmt = "%-16s %-11s %8s %21s %15s %13s%n";
        sb.append(String.format(Locale.ROOT, fmt, "scenario", "wiring", FIGURES.get(0), FIGURES.get(1), FIGURES.get(2), FIGURES.get(3)));
        for (RunRecord r : runs) {
            List<String> f = figures(r);
            sb.append(String.format(Locale.ROOT, fmt, r.replayCase().name(), r.wiring().flag(), f.get(0), f.get(1), f.get(2), f.get(3)));
        }
        sb.append("(not ready after Ready: seconds with Ready false after the first Ready, the whole run if never Ready;\n"
                + " probe failures: liveness + readiness; liveness p99: a timed-out probe counts as its timeout)\n");
        return sb.toString();
    }

    /**
     * @param runs the runs
     * @return for each run with resources ({@code cpu-limit}), its limits and how they were
     *         applied, then each demo instance's CPU used, periods throttled and time throttled
     *         (the cgroup's own counters at its exit); empty when no run had resources
     */
    public static String throttling(List<RunRecord> runs) {
        StringBuilder sb = new StringBuilder();
        for (RunRecord r : runs) {
            String lines = Reports.resources(r.result());
            if (!lines.isEmpty()) {
                sb.append(r.replayCase().name()).append(" / ").append(r.wiring().flag()).append(String.format(Locale.ROOT, "%s%n",
                        r.firstReadySeconds().isPresent() ? String.format(Locale.ROOT, " (first Ready at %.1f s)",
                                r.firstReadySeconds().getAsDouble()) : " (never Ready)"));
                sb.append(lines);
            }
        }
        return sb.toString();
    }

    /**
     * @param runs the runs, in the order they ran
     * @return the replay's verdict: FAIL when a run failed, else PASS when one was judged, else SKIP
     *         (nothing could be judged on this machine; {@link #passed} is false)
     */
    public static VerdictLine.Word verdict(List<RunRecord> runs) {
        return runs.stream().anyMatch(r -> r.verdict() == RunRecord.Verdict.FAIL) ? VerdictLine.Word.FAIL
                : passed(runs) ? VerdictLine.Word.PASS : VerdictLine.Word.SKIP;
    }

    /**
     * @param runs the runs, in the order they ran
     * @return whether the replay may be called a success: no run {@link RunRecord.Verdict#FAIL}ed
     *         and at least one was judged and passed (a replay where nothing could be judged on
     *         this machine is not a success)
     */
    public static boolean passed(List<RunRecord> runs) {
        return runs.stream().noneMatch(r -> r.verdict() == RunRecord.Verdict.FAIL)
                && runs.stream().anyMatch(r -> r.verdict() == RunRecord.Verdict.PASS);
    }

    /**
     * Renders the verdicts for the terminal.
     *
     * @param runs the runs, in the order they ran
     * @return one line per scenario ({@link VerdictLine}): PASS, FAIL or SKIP, the claim, then in parentheses the restart figures and any failed check
     */
    public static String verdicts(List<RunRecord> runs) {
        return verdicts(runs, List.of());
    }

    /**
     * @param runs the runs
     * @param skipped cases that were not run because sizing could not give them their margins
     * @return one line per scenario: FAIL when a judged run failed, SKIP when nothing in it could
     *         be judged, else PASS; a SKIP names the margin that was missing
     */
    public static String verdicts(List<RunRecord> runs, List<ReplayCase> skipped) {
        Map<String, List<RunRecord>> byScenario = new LinkedHashMap<>();
        Map<String, List<String>> skips = new LinkedHashMap<>();
        for (RunRecord r : runs) {
            byScenario.computeIfAbsent(r.replayCase().scenario(), k -> new ArrayList<>()).add(r);
            r.inconclusive().ifPresent(why -> skips.computeIfAbsent(r.replayCase().scenario(), k -> new ArrayList<>())
                    .add(r.replayCase().name() + "/" + r.wiring().flag() + ": " + why));
        }
        for (ReplayCase c : skipped) {
            byScenario.computeIfAbsent(c.scenario(), k -> new ArrayList<>());
            skips.computeIfAbsent(c.scenario(), k -> new ArrayList<>()).add(c.name() + " not run: " + c.skip().orElse("skipped"));
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<RunRecord>> e : byScenario.entrySet()) {
            boolean failed = e.getValue().stream().anyMatch(r -> r.verdict() == RunRecord.Verdict.FAIL);
            boolean judged = e.getValue().stream().anyMatch(r -> r.verdict() == RunRecord.Verdict.PASS);
            Map<String, String> figures = new LinkedHashMap<>();
            List<String> failures = new ArrayList<>();
            for (RunRecord r : e.getValue()) {
                String name = r.replayCase().name();
                figures.merge(name, r.wiring().flag() + " " + r.restarts(), (a, b) -> a + ", " + b);
                if (r.verdict() != RunRecord.Verdict.FAIL) {
                    continue;
                }
                for (Expectation.Check c : r.checks()) {
                    if (!c.passed()) {
                        failures.add(name + "/" + r.wiring().flag() + ": expected " + c.expectation() + ", got " + c.actual());
                    }
                }
            }
            List<String> parts = new ArrayList<>();
            figures.forEach((k, v) -> parts.add(k + ": " + v));
            VerdictLine.Word word = failed ? VerdictLine.Word.FAIL : judged ? VerdictLine.Word.PASS : VerdictLine.Word.SKIP;
            List<String> detail = new ArrayList<>();
            if (!parts.isEmpty()) {
                detail.add("restarts: " + String.join("; ", parts));
            }
            detail.addAll(failures);
            detail.addAll(skips.getOrDefault(e.getKey(), List.of()).stream().map(x -> "skipped " + x).toList());
            String claim = CLAIMS.getOrDefault(e.getKey(), "");
            sb.append(VerdictLine.of(word, claim.isEmpty() ? e.getKey() : e.getKey() + ": " + claim, String.join("; ", detail)))
                    .append('\n');
        }
        return sb.toString();
    }

    /**
     * @param cases the cases as sized
     * @return the margins of every case, one line each, as the header prints them
     */
    public static String margins(List<ReplayCase> cases) {
        StringBuilder sb = new StringBuilder();
        for (ReplayCase c : cases) {
            for (Margin m : c.margins()) {
                sb.append(String.format(Locale.ROOT, "  %-16s %s%s%n", c.name(), m.holds() ? "" : "TOO SMALL ", m.describe()));
            }
        }
        return sb.toString();
    }

    /**
     * The JSON report: {@code {"passed":…,"runs":[{"scenario","case","wiring","restarts","kills",
     * "notReadySeconds","probeFailures","livenessP99Ms","firstReadySeconds","durationSeconds",
     * "passed","checks":[…],"notes":[…]}]}}. {@code scenario} is the case's row name
     * ({@code incident}, {@code incident-burst}, …); {@code group} the scenario it belongs to.
     *
     * @param runs the runs, in the order they ran
     * @return the JSON text
     */
    public static String json(List<RunRecord> runs) {
        ObjectNode root = JSON.createObjectNode();
        root.put("passed", passed(runs));
        ArrayNode arr = root.putArray("runs");
        for (RunRecord r : runs) {
            ObjectNode n = arr.addObject();
            n.put("scenario", r.replayCase().name());
            n.put("group", r.replayCase().scenario());
            n.put("wiring", r.wiring().flag());
            n.put("restarts", r.restarts());
            n.put("kills", r.result().kills());
            n.put("notReadySeconds", round(r.notReadySeconds()));
            n.put("notReadyTotalSeconds", round(r.notReadyTotalSeconds()));
            n.put("probeFailures", r.probeFailures());
            n.put("livenessP99Ms", round(r.livenessP99Ms()));
            if (r.firstReadySeconds().isPresent()) {
                n.put("firstReadySeconds", round(r.firstReadySeconds().getAsDouble()));
            } else {
                n.putNull("firstReadySeconds");
            }
            n.put("durationSeconds", RunRecord.seconds(r.result().duration()));
            n.put("passed", r.passed());
            n.put("verdict", r.verdict().name());
            r.inconclusive().ifPresent(why -> n.put("skipReason", why));
            Reports.resourcesJson(r.result(), n);
            ArrayNode margins = n.putArray("margins");
            List<Margin> all = new ArrayList<>(r.replayCase().margins());
            all.addAll(r.measuredMargins());
            for (Margin m : all) {
                margins.addObject().put("what", m.what()).put("have", round(m.have())).put("need", round(m.need()))
                        .put("ratio", round(m.ratio())).put("required", m.required()).put("measured", m.measured())
                        .put("holds", m.holds());
            }
            ArrayNode checks = n.putArray("checks");
            for (Expectation.Check c : r.checks()) {
                checks.addObject().put("expect", c.expectation()).put("passed", c.passed()).put("actual", c.actual());
            }
            ArrayNode notes = n.putArray("notes");
            for (RunRecord.Note note : r.notes()) {
                notes.addObject().put("t", round(note.t())).put("text", note.text());
            }
        }
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /**
     * Names a run's HTML page.
     *
     * @param r the run
     * @return the file name of a run's page, e.g. {@code incident-naive.html}
     */
    public static String pageName(RunRecord r) {
        return r.replayCase().name() + "-" + r.wiring().flag() + ".html";
    }

    /**
     * Renders a run's HTML page.
     *
     * @param r the run
     * @return a run's page: the simulator's HTML report (SVG timeline, summary, events) plus the replay's
     *        actions and checks
     */
    public static String page(RunRecord r) {
        String html = Reports.html(r.result(), r.pod());
        html = html.replace("<p>(injected runtime)</p>", "<p>" + esc(String.join(" ", r.command())) + "</p>");
        html = html.replaceFirst("<h1>vitals simulate: container demo</h1>",
                "<h1>vitals replay: " + esc(r.replayCase().name()) + ", " + r.wiring().flag() + " wiring</h1>\n<p>"
                        + esc(r.replayCase().title()) + " — <a href='index.html'>all runs</a></p>");
        StringBuilder extra = new StringBuilder("<h2>Replay figures</h2>\n<table class='figures'><tr>" + figureHeaders()
                + "<th>verdict</th></tr>\n<tr>" + figureCells(r) + "<td>" + verdictCell(r) + "</td></tr></table>\n"
                + "<h2>Replay actions</h2>\n<table>");
        for (RunRecord.Note n : r.notes()) {
            extra.append(String.format(Locale.ROOT, "<tr><td>%.2f</td><td>%s</td></tr>%n", n.t(), esc(n.text())));
        }
        extra.append("</table>\n<h2>Checks</h2>\n<table>");
        for (Expectation.Check c : r.checks()) {
            extra.append("<tr><td>").append(c.passed() ? "PASS" : "<b style='color:#c62828'>FAIL</b>").append("</td><td>")
                    .append(esc(c.expectation())).append("</td><td>").append(esc(c.actual())).append("</td></tr>\n");
        }
        extra.append("</table>\n");
        return html.replaceFirst("<h2>Summary</h2>", java.util.regex.Matcher.quoteReplacement(extra.toString()) + "<h2>Summary</h2>");
    }

    /**
     * Renders the replay's index page.
     *
     * @param runs the runs, in the order they ran
     * @return the index page: the side-by-side table with links to each run's page, and the verdicts
     */
    public static String index(List<RunRecord> runs) {
        StringBuilder rows = new StringBuilder();
        for (RunRecord r : runs) {
            rows.append("<tr><td>").append(esc(r.replayCase().name())).append("</td><td><a href='").append(pageName(r)).append("'>")
                    .append(r.wiring().flag()).append("</a></td>").append(figureCells(r)).append("<td>").append(verdictCell(r))
                    .append("</td></tr>\n");
        }
        StringBuilder cases = new StringBuilder();
        String last = "";
        for (RunRecord r : runs) {
            if (!r.replayCase().name().equals(last)) {
                last = r.replayCase().name();
                cases.append("<li><b>").append(esc(last)).append("</b>: ").append(esc(r.replayCase().title())).append("</li>\n");
            }
        }
        return "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>vitals replay</title><style>"
                + "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
                + "td,th{border-bottom:1px solid #ddd;padding:4px 10px;text-align:right}td:first-child,th:first-child,"
                + "td:nth-child(2),th:nth-child(2),td:last-child{text-align:left}pre{background:#f6f6f6;padding:12px}"
                + "</style></head><body>\n<h1>vitals replay</h1>\n<p>Each case ran the demo twice, <code>--wiring naive</code> and "
                + "<code>--wiring vitals</code>, under the same kubelet probes and the same faults.</p>\n<table><tr><th>scenario</th>"
                + "<th>wiring</th>" + figureHeaders() + "<th>verdict</th></tr>\n"
                + rows + "</table>\n<h2>Verdicts</h2>\n<pre>" + esc(verdicts(runs)) + "</pre>\n<h2>Cases</h2>\n<ul>\n" + cases
                + "</ul>\n</body></html>\n";
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
