package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.fleet.FleetEnsemble;
import dev.vitals.kubesim.fleet.FleetReplay;
import dev.vitals.kubesim.fleet.FleetReport;
import dev.vitals.kubesim.fleet.FleetResult;
import dev.vitals.kubesim.fleet.FleetScenarios;
import dev.vitals.kubesim.input.InvalidInputException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/** The fleet half of {@code vitals replay}: {@code --replicas N}, or a fleet-only scenario; ensembles of seeds. */
final class FleetReplayCommand {
    private FleetReplayCommand() {
    }

    /** @return true when a scenario exists only on the fleet (every fleet scenario but incident, which the demo replays too) */
    static boolean fleetOnly(List<String> scenarios) {
        return scenarios.contains("incident-pinned") || scenarios.contains("incident-pinned-sustained")
                || scenarios.contains("incident-stress") || scenarios.contains("shared-dependency") || scenarios.contains("rebalance")
                || scenarios.contains("rollout");
    }

    /**
     * {@code vitals replay rollout --live}: the scenario on the live engine, naive then Vitals, once
     * each (docs/fleet.md, "A live rollout").
     */
    static int runLive(List<String> scenarios, Integer replicas, Integer runsOption, Path json, Path html, PrintWriter out,
            PrintWriter err, boolean quiet) throws InterruptedException {
        if (runsOption != null && runsOption != 1) {
            throw new InvalidInputException("--runs is for the model engine; with --live each wiring runs once");
        }
        List<String> names;
        try {
            names = scenarios.isEmpty() ? FleetReplay.LIVE : FleetReplay.select(scenarios);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
        if (names.size() != 1 || !FleetReplay.LIVE.contains(names.get(0))) {
            throw new InvalidInputException("--live replays " + String.join(", ", FleetReplay.LIVE) + " only, was "
                    + String.join(" ", scenarios.isEmpty() ? names : scenarios));
        }
        int n = replicas == null ? FleetReplay.DEFAULT_LIVE_REPLICAS : replicas;
        if (n < 1 || n > dev.vitals.kubesim.fleet.LiveFleet.MAX_REPLICAS) {
            throw new InvalidInputException("--replicas must be 1-" + dev.vitals.kubesim.fleet.LiveFleet.MAX_REPLICAS + " with --live, was " + n);
        }
        String name = names.get(0);
        long seconds = FleetScenarios.spec(name, n, FleetScenarios.Wiring.NAIVE).duration().toSeconds();
        out.printf(Locale.ROOT, "vitals replay %s --live: %d real replicas (the synthetic replica, as the scenario declares them) behind "
                + "the real Service, naive then vitals, about %d s each after warm-up%n  %s%n", name, n, seconds, FleetScenarios.title(name));
        out.flush();
        long t0 = System.nanoTime();
        List<FleetReplay.Run> result;
        try {
            result = FleetReplay.runLive(name, n, line -> {
                if (!quiet) {
                    err.println(line);
                    err.flush();
                }
            });
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
        return report(result, List.of(name), 1, json, html, out, "live engine", t0, " --live");
    }

    static int run(List<String> scenarios, Integer replicas, Integer runsOption, Path json, Path html, PrintWriter out) {
        if (replicas != null && (replicas < 1 || replicas > dev.vitals.kubesim.fleet.FleetSpec.MAX_REPLICAS)) {
            throw new InvalidInputException("--replicas must be 1-" + dev.vitals.kubesim.fleet.FleetSpec.MAX_REPLICAS + ", was " + replicas);
        }
        if (replicas != null) {
            FleetCommand.checkHeap(replicas, 2); // the replays run two at once
        }
        int runs = runsOption == null ? FleetReplay.DEFAULT_RUNS : runsOption;
        if (runs < 1 || runs > 1000) {
            throw new InvalidInputException("--runs must be 1-1000, was " + runs);
        }
        List<String> names;
        try {
            names = FleetReplay.select(scenarios);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
        int threads = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));
        out.printf(Locale.ROOT, "vitals replay --replicas: %d fleet scenario(s) on the model engine, each wiring (naive, vitals) "
                + "run %d time(s) with seeds 1-%d on %d thread(s)%n", names.size(), runs, runs, threads);
        for (String n : names) {
            int size = replicas != null ? replicas : FleetScenarios.defaultReplicas(n);
            dev.vitals.kubesim.fleet.Routing routing = FleetScenarios.spec(n, size, FleetScenarios.Wiring.NAIVE).service().routing();
            out.printf(Locale.ROOT, "  %-25s %d replicas: %s; routing: %s%n", n, size, FleetScenarios.title(n), routing.describe());
        }
        out.flush();
        long t0 = System.nanoTime();
        List<FleetReplay.Run> result;
        try {
            result = FleetReplay.run(names, replicas == null ? OptionalInt.empty() : OptionalInt.of(replicas), runs, threads);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
        return report(result, names, runs, json, html, out, "model engine", t0, "");
    }

    private static int report(List<FleetReplay.Run> result, List<String> names, int runs, Path json, Path html, PrintWriter out,
            String engine, long t0, String flag) {
        out.println();
        out.print(FleetReport.ensembleTable(FleetReplay.ensembles(result)));
        out.println("(median over the runs, [min-max] where they differ; crashloop s and not-ready s are replica-seconds)");
        out.print(incidentStory(result));
        for (FleetReplay.Run r : result) {
            FleetResult m = r.ensemble().medianRun();
            if (m.rollout().isPresent()) {
                out.printf(Locale.ROOT, "%s, the median run (seed %d):%n%s", r.ensemble().label(),
                        r.ensemble().seeds().get(r.ensemble().runs().indexOf(m)), FleetReport.rollout(m.rollout().get()));
            }
        }
        out.println();
        out.print(FleetReplay.verdicts(result));
        out.printf(Locale.ROOT, "(%s: %.1f s)%n", engine, (System.nanoTime() - t0) / 1e9);
        if (json != null) {
            SimulateChecks.write(json, FleetReplay.json(result));
            out.println("wrote " + json);
        }
        if (html != null) {
            HtmlOutput target = HtmlOutput.of(html);
            StringBuilder pages = new StringBuilder();
            List<FleetEnsemble> all = new ArrayList<>();
            for (String n : names) {
                List<FleetEnsemble> mine = new ArrayList<>();
                for (FleetReplay.Run r : result) {
                    if (r.scenario().equals(n)) {
                        mine.add(r.ensemble());
                    }
                }
                String file = "fleet-" + n + ".html";
                SimulateChecks.write(target.page(file), FleetReport.ensembleHtml("vitals replay " + n + " --replicas "
                        + mine.get(0).runs().get(0).replicas() + flag + ": naive vs Vitals, " + runs + " run(s) each", mine));
                all.addAll(mine);
                boolean passed = mine.stream().allMatch(FleetEnsemble::passed);
                pages.append("<li><a href='").append(esc(file)).append("'>").append(esc(n)).append("</a>: ")
                        .append(esc(FleetScenarios.title(n))).append(" — ").append(passed ? "PASS" : "FAIL").append("</li>\n");
            }
            String title = "vitals replay --replicas" + flag + ": " + runs + " run(s) of each wiring";
            SimulateChecks.write(target.index(), "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>" + esc(title)
                    + "</title><style>body{font-family:sans-serif;margin:24px;color:#222}pre{background:#f6f6f6;padding:12px}"
                    + "</style></head><body>\n<h1>" + esc(title) + "</h1>\n<pre>" + esc(FleetReport.ensembleTable(all))
                    + "</pre>\n<p>Each figure is the median over the runs, with [min-max] where the runs differ.</p>\n"
                    + "<h2>Scenarios</h2>\n<ul>\n" + pages + "</ul>\n</body></html>\n");
            out.println("wrote " + target.index() + " and " + names.size() + " scenario page(s) beside it");
        }
        boolean ok = result.stream().allMatch(r -> r.ensemble().passed());
        out.println(dev.vitals.kubesim.report.VerdictLine.overall(dev.vitals.kubesim.report.VerdictLine.Word.of(ok)));
        out.flush();
        return ok ? VitalsCommand.OK : VitalsCommand.FAILED;
    }

    /**
     * The main job's story, when the replay ran the incident: the load as written (row 1), the same load
     * pinned by ClientIP affinity (row 2), Vitals under both (row 3), each next to the write-up's
     * figures, and the pinned burst's path in the median run.
     */
    private static String incidentStory(List<FleetReplay.Run> result) {
        FleetEnsemble spreadNaive = null;
        FleetEnsemble pinnedNaive = null;
        FleetEnsemble sustainedNaive = null;
        List<FleetEnsemble> vitals = new ArrayList<>();
        for (FleetReplay.Run r : result) {
            boolean naive = r.wiring() == FleetScenarios.Wiring.NAIVE;
            if (r.scenario().equals("incident")) {
                if (naive) {
                    spreadNaive = r.ensemble();
                } else {
                    vitals.add(r.ensemble());
                }
            } else if (r.scenario().equals("incident-pinned")) {
                if (naive) {
                    pinnedNaive = r.ensemble();
                } else {
                    vitals.add(r.ensemble());
                }
            } else if (r.scenario().equals("incident-pinned-sustained")) {
                if (naive) {
                    sustainedNaive = r.ensemble();
                } else {
                    vitals.add(r.ensemble());
                }
            }
        }
        if (spreadNaive == null && pinnedNaive == null && sustainedNaive == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        FleetEnsemble any = spreadNaive != null ? spreadNaive : pinnedNaive != null ? pinnedNaive : sustainedNaive;
        sb.append(String.format(Locale.ROOT, "%nThe incident on %d replicas (median [range] over %d runs); the write-up: %s:%n",
                any.runs().get(0).replicas(), any.runs().size(), FleetScenarios.INCIDENT_FIGURES));
        if (spreadNaive != null) {
            sb.append(String.format(Locale.ROOT, "  1. as written, %s, naive:%n     %s%n", spreadNaive.runs().get(0).routing(),
                    figures(spreadNaive)));
        }
        if (pinnedNaive != null) {
            sb.append(String.format(Locale.ROOT, "  2. the same 53 exports from one source address, %s, pods at %s, naive:%n     %s%n",
                    pinnedNaive.runs().get(0).routing(), FleetScenarios.USUAL_TRAFFIC.describe(), figures(pinnedNaive)));
            sb.append(againstWriteUp(pinnedNaive));
            sb.append(path(pinnedNaive));
        }
        if (sustainedNaive != null) {
            sb.append(String.format(Locale.ROOT, "  2b. pinned the same way, the script keeping its 50 exports in flight for the six minutes, naive:%n"
                    + "     %s%n", figures(sustainedNaive)));
            sb.append(againstWriteUp(sustainedNaive));
            sb.append(path(sustainedNaive));
        }
        if (!vitals.isEmpty()) {
            sb.append("  3. Vitals' wiring under ").append(vitals.size() > 1 ? "each" : "it").append(':');
            for (FleetEnsemble v : vitals) {
                sb.append(String.format(Locale.ROOT, "%n     %s: %s", v.label(), figures(v)));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String againstWriteUp(FleetEnsemble e) {
        double killed = e.spread(figure("pods killed")).median();
        double restarts = e.spread(figure("restarts")).median();
        return String.format(Locale.ROOT, "     against the write-up: pods killed %s vs 11 (%s), restarts %s vs 31 (%s); docs/replay.md: why%n",
                fmt(killed), diff(killed, 11), fmt(restarts), diff(restarts, 31));
    }

    private static String diff(double model, double writeUp) {
        double d = model - writeUp;
        return d == 0 ? "the same" : d < 0 ? fmt(-d) + " fewer" : fmt(d) + " more";
    }

    /** The median run's hot spot: peak in flight per pod and the pinned key's path from pod to pod. */
    private static String path(FleetEnsemble e) {
        FleetResult m = e.medianRun();
        String path = FleetReport.hotSpot(m);
        if (path.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "     the median run (seed %d):%n", e.seeds().get(e.runs().indexOf(m))));
        for (String line : path.split("\n")) {
            sb.append("   ").append(line).append('\n');
        }
        return sb.toString();
    }

    private static String figures(FleetEnsemble e) {
        return String.format(Locale.ROOT, "kills %s, pods killed %s, restarts %s, %s s without endpoints, client errors %s %%",
                spread(e, "kills"), spread(e, "pods killed"), spread(e, "restarts"), spread(e, "zero-ep s"), spread(e, "errors %"));
    }

    private static FleetEnsemble.Figure figure(String column) {
        for (FleetEnsemble.Figure f : FleetEnsemble.FIGURES) {
            if (f.column().equals(column)) {
                return f;
            }
        }
        throw new IllegalArgumentException(column);
    }

    private static String spread(FleetEnsemble e, String column) {
        for (FleetEnsemble.Figure f : FleetEnsemble.FIGURES) {
            if (f.column().equals(column)) {
                FleetEnsemble.Spread s = e.spread(f);
                return s.fixed() ? fmt(s.median()) : fmt(s.median()) + " [" + fmt(s.min()) + "-" + fmt(s.max()) + "]";
            }
        }
        throw new IllegalArgumentException(column);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
