package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.fleet.FleetEnsemble;
import dev.vitals.kubesim.fleet.FleetReplay;
import dev.vitals.kubesim.fleet.FleetReport;
import dev.vitals.kubesim.fleet.FleetResult;
import dev.vitals.kubesim.fleet.FleetScenarios;
import dev.vitals.kubesim.input.InvalidInputException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/** The fleet half of {@code vitals replay}: {@code --replicas N}, or a fleet-only scenario; ensembles of seeds. */
final class FleetReplayCommand {
    private FleetReplayCommand() {
    }

    /** @return true when a scenario exists only on the fleet (incident-stress, shared-dependency, rebalance, rollout) */
    static boolean fleetOnly(List<String> scenarios) {
        return scenarios.contains("incident-stress") || scenarios.contains("shared-dependency") || scenarios.contains("rebalance")
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
        checkHtml(html);
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

    private static void checkHtml(Path html) {
        if (html != null && Files.exists(html) && !Files.isDirectory(html)) {
            throw new InvalidInputException("--html " + html + ": not a directory");
        }
    }

    static int run(List<String> scenarios, Integer replicas, Integer runsOption, Path json, Path html, PrintWriter out) {
        if (replicas != null && (replicas < 1 || replicas > 5000)) {
            throw new InvalidInputException("--replicas must be 1-5000, was " + replicas);
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
        checkHtml(html);
        int threads = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));
        out.printf(Locale.ROOT, "vitals replay --replicas: %d fleet scenario(s) on the model engine, each wiring (naive, vitals) "
                + "run %d time(s) with seeds 1-%d on %d thread(s)%n", names.size(), runs, runs, threads);
        for (String n : names) {
            out.printf(Locale.ROOT, "  %-18s %d replicas: %s%n", n, replicas != null ? replicas : FleetScenarios.defaultReplicas(n),
                    FleetScenarios.title(n));
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
        for (FleetReplay.Run r : result) {
            if (r.scenario().equals("incident") && r.wiring() == FleetScenarios.Wiring.NAIVE) {
                FleetEnsemble e = r.ensemble();
                out.printf(Locale.ROOT, "incident write-up: %s; the model (naive, %d replicas): %s kills, %s restarts "
                        + "(docs/replay.md: why they differ)%n", FleetScenarios.INCIDENT_FIGURES, e.runs().get(0).replicas(),
                        spread(e, "kills"), spread(e, "restarts"));
            }
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
            for (String n : names) {
                List<FleetEnsemble> mine = new ArrayList<>();
                for (FleetReplay.Run r : result) {
                    if (r.scenario().equals(n)) {
                        mine.add(r.ensemble());
                    }
                }
                Path page = html.resolve("fleet-" + n + ".html");
                SimulateChecks.write(page, FleetReport.ensembleHtml("vitals replay " + n + " --replicas " + mine.get(0).runs().get(0).replicas()
                        + flag + ": naive vs Vitals, " + runs + " run(s) each", mine));
                out.println("wrote " + page);
            }
        }
        boolean ok = result.stream().allMatch(r -> r.ensemble().passed());
        out.println(dev.vitals.kubesim.report.VerdictLine.overall(dev.vitals.kubesim.report.VerdictLine.Word.of(ok)));
        out.flush();
        return ok ? VitalsCommand.OK : VitalsCommand.FAILED;
    }

    private static String spread(FleetEnsemble e, String column) {
        for (FleetEnsemble.Figure f : FleetEnsemble.FIGURES) {
            if (f.column().equals(column)) {
                FleetEnsemble.Spread s = e.spread(f);
                return s.fixed() ? fmt(s.median()) : fmt(s.median()) + " (range " + fmt(s.min()) + "-" + fmt(s.max()) + ")";
            }
        }
        throw new IllegalArgumentException(column);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
