package dev.vitals.kubesim.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The fleet replays on the model engine: each scenario of {@link FleetScenarios} run for both
 * wirings, naive and Vitals, on the same seed. The library entry point of
 * {@code vitals replay incident --replicas 12}. Thread-safe (stateless).
 */
public final class FleetReplay {
    private FleetReplay() {
    }

    /**
     * One run of a replay.
     *
     * @param scenario the scenario name
     * @param wiring the wiring
     * @param result what the model engine saw
     */
    public record Run(String scenario, FleetScenarios.Wiring wiring, FleetResult result) {
        public Run {
            Objects.requireNonNull(scenario, "scenario");
            Objects.requireNonNull(wiring, "wiring");
            Objects.requireNonNull(result, "result");
        }
    }

    /**
     * @param names scenario names; empty or {@code all} means every fleet scenario
     * @return the names, in catalog order, each once
     * @throws IllegalArgumentException naming an unknown scenario and the known ones
     */
    public static List<String> select(List<String> names) {
        if (names.isEmpty() || names.contains("all")) {
            return FleetScenarios.NAMES;
        }
        for (String n : names) {
            if (!FleetScenarios.NAMES.contains(n)) {
                throw new IllegalArgumentException("unknown fleet scenario '" + n + "': with --replicas, expected one of "
                        + String.join(", ", FleetScenarios.NAMES) + ", all");
            }
        }
        List<String> out = new ArrayList<>();
        for (String n : FleetScenarios.NAMES) {
            if (names.contains(n)) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Runs each scenario naive then Vitals.
     *
     * @param names scenario names (see {@link #select(List)})
     * @param replicas the fleet size, or empty for each scenario's default (12, 6, 6)
     * @return the runs, two per scenario
     * @throws IllegalArgumentException for an unknown scenario or a size outside 1–5,000
     */
    public static List<Run> run(List<String> names, OptionalInt replicas) {
        List<Run> out = new ArrayList<>();
        for (String name : select(names)) {
            int n = replicas.orElse(FleetScenarios.defaultReplicas(name));
            for (FleetScenarios.Wiring w : FleetScenarios.Wiring.values()) {
                FleetSpec spec = FleetScenarios.spec(name, n, w);
                out.add(new Run(name, w, new ModelFleet(spec, name + " " + w.flag()).run()));
            }
        }
        return out;
    }

    /** @return the results of the runs, in order */
    public static List<FleetResult> results(List<Run> runs) {
        List<FleetResult> r = new ArrayList<>();
        runs.forEach(x -> r.add(x.result()));
        return r;
    }

    /** @return the JSON report of the runs ({@code runs[]} with {@code scenario}, {@code wiring}, {@code restarts}, …) */
    public static String json(List<Run> runs) {
        List<String> scenarios = new ArrayList<>();
        List<String> wirings = new ArrayList<>();
        for (Run r : runs) {
            scenarios.add(r.scenario());
            wirings.add(r.wiring().flag());
        }
        return FleetReport.json(results(runs), scenarios, wirings);
    }

    /** @return one line per run: the verdict of each expectation */
    public static String verdicts(List<Run> runs) {
        StringBuilder sb = new StringBuilder();
        for (Run r : runs) {
            for (FleetResult.Check c : r.result().checks()) {
                sb.append(c.passed() ? "[PASS] " : "[FAIL] ").append(r.result().label()).append(": ").append(c.expectation())
                        .append(" (actual ").append(c.actual() == Math.rint(c.actual()) ? Long.toString((long) c.actual())
                                : String.format(java.util.Locale.ROOT, "%.2f", c.actual())).append(")\n");
            }
        }
        return sb.toString();
    }
}
