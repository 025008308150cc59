package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.InvalidInputException;
import dev.vitals.kubesim.fleet.FleetReplay;
import dev.vitals.kubesim.fleet.FleetReport;
import dev.vitals.kubesim.fleet.FleetScenarios;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/** The fleet half of {@code vitals replay}: {@code --replicas N}, or a fleet-only scenario. */
final class FleetReplayCommand {
    private FleetReplayCommand() {
    }

    /** @return true when a scenario exists only on the fleet (shared-dependency, rebalance) */
    static boolean fleetOnly(List<String> scenarios) {
        return scenarios.contains("shared-dependency") || scenarios.contains("rebalance");
    }

    static int run(List<String> scenarios, Integer replicas, Path json, Path html, PrintWriter out) {
        if (replicas != null && (replicas < 1 || replicas > 5000)) {
            throw new InvalidInputException("--replicas must be 1-5000, was " + replicas);
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
        out.printf(Locale.ROOT, "vitals replay --replicas: %d fleet scenario(s) on the model engine, each run twice "
                + "(--wiring naive, --wiring vitals)%n", names.size());
        for (String n : names) {
            out.printf(Locale.ROOT, "  %-18s %d replicas: %s%n", n, replicas != null ? replicas : FleetScenarios.defaultReplicas(n),
                    FleetScenarios.title(n));
        }
        out.flush();
        long t0 = System.nanoTime();
        List<FleetReplay.Run> runs;
        try {
            runs = FleetReplay.run(names, replicas == null ? OptionalInt.empty() : OptionalInt.of(replicas));
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
        out.println();
        out.print(FleetReport.table(FleetReplay.results(runs)));
        out.println();
        out.print(FleetReplay.verdicts(runs));
        out.printf(Locale.ROOT, "(model engine: %.1f s)%n", (System.nanoTime() - t0) / 1e9);
        if (json != null) {
            FleetCommand.write(json, FleetReplay.json(runs));
            out.println("wrote " + json);
        }
        if (html != null) {
            for (String n : names) {
                List<FleetReplay.Run> mine = new ArrayList<>();
                for (FleetReplay.Run r : runs) {
                    if (r.scenario().equals(n)) {
                        mine.add(r);
                    }
                }
                Path page = html.resolve("fleet-" + n + ".html");
                FleetCommand.write(page, FleetReport.html("vitals replay " + n + " --replicas " + mine.get(0).result().replicas()
                        + ": naive vs Vitals", FleetReplay.results(mine)));
                out.println("wrote " + page);
            }
        }
        out.flush();
        boolean ok = runs.stream().allMatch(r -> r.result().passed());
        return ok ? VitalsCommand.OK : VitalsCommand.FAILED;
    }
}
