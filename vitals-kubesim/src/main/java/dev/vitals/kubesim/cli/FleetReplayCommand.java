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
        if (html != null && Files.exists(html) && !Files.isDirectory(html)) {
            throw new InvalidInputException("--html " + html + ": not a directory");
        }
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
        out.printf(Locale.ROOT, "(model engine: %.1f s)%n", (System.nanoTime() - t0) / 1e9);
        if (json != null) {
            FleetCommand.write(json, FleetReplay.json(result));
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
                FleetCommand.write(page, FleetReport.ensembleHtml("vitals replay " + n + " --replicas " + mine.get(0).runs().get(0).replicas()
                        + ": naive vs Vitals, " + runs + " run(s) each", mine));
                out.println("wrote " + page);
            }
        }
        out.flush();
        boolean ok = result.stream().allMatch(r -> r.ensemble().passed());
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
