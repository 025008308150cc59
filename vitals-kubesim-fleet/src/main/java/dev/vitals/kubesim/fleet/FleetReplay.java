package dev.vitals.kubesim.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The fleet replays on the model engine: each scenario of {@link FleetScenarios} run for both
 * wirings, naive and Vitals, on the same seeds. The library entry point of
 * {@code vitals replay incident --replicas 12}. Each scenario and wiring runs as an ensemble of
 * seeds ({@link FleetEnsemble}). Thread-safe (stateless).
 */
public final class FleetReplay {
    private FleetReplay() {
    }

    /** Runs per ensemble unless {@code --runs} says otherwise. */
    public static final int DEFAULT_RUNS = 5;

    /**
     * One scenario and wiring of a replay, run as an ensemble of seeds.
     *
     * @param scenario the scenario name
     * @param wiring the wiring
     * @param ensemble what the model engine saw, run by run
     */
    public record Run(String scenario, FleetScenarios.Wiring wiring, FleetEnsemble ensemble) {
        /**
         * Validates the components.
         *
         * @param scenario the scenario name
         * @param wiring the wiring
         * @param ensemble what the model engine saw, run by run
         * @throws NullPointerException if a required component is null
         */
        public Run {
            Objects.requireNonNull(scenario, "scenario");
            Objects.requireNonNull(wiring, "wiring");
            Objects.requireNonNull(ensemble, "ensemble");
        }
    }

    /**
     * @param names scenario names; empty or {@code all} means every fleet scenario; {@code incident}
     *        brings {@code incident-pinned} and {@code incident-pinned-sustained} with it (the main job's second rows)
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
            if (names.contains(n) || n.startsWith("incident-pinned") && names.contains("incident")) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Runs each scenario naive and Vitals, each as an ensemble of {@code runs} seeds (1, 2, …),
     * all on one pool of {@code threads} threads.
     *
     * @param names scenario names (see {@link #select(List)})
     * @param replicas the fleet size, or empty for each scenario's default
     * @param runs runs per ensemble, 1–1,000
     * @param threads threads to run them on, ≥ 1
     * @return the ensembles, naive then Vitals per scenario
     * @throws IllegalArgumentException for an unknown scenario, a size outside 1–{@value FleetSpec#MAX_REPLICAS} or a bad count
     */
    public static List<Run> run(List<String> names, OptionalInt replicas, int runs, int threads) {
        List<FleetSpec> specs = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<String> scenario = new ArrayList<>();
        List<FleetScenarios.Wiring> wirings = new ArrayList<>();
        for (String name : select(names)) {
            int n = replicas.orElse(FleetScenarios.defaultReplicas(name));
            for (FleetScenarios.Wiring w : FleetScenarios.Wiring.values()) {
                specs.add(FleetScenarios.spec(name, n, w));
                labels.add(name + " " + w.flag());
                scenario.add(name);
                wirings.add(w);
            }
        }
        List<FleetEnsemble> ens = FleetEnsemble.runAll(specs, labels, runs, threads);
        List<Run> out = new ArrayList<>();
        for (int i = 0; i < ens.size(); i++) {
            out.add(new Run(scenario.get(i), wirings.get(i), ens.get(i)));
        }
        return out;
    }

    /** Replicas of a live replay unless {@code --replicas} says otherwise. */
    public static final int DEFAULT_LIVE_REPLICAS = 3;

    /**
     * The scenarios the live engine replays: those whose clients it can drive (a new connection
     * per request, no kept connections).
     */
    public static final List<String> LIVE = List.of("rollout");

    /**
     * Runs a scenario live, naive then Vitals, once each: {@code replicas} real
     * {@link SyntheticReplica} processes as the scenario declares its replicas (workers, service
     * times, start and warm-up; a rollout's new version from its environment), each probed by its
     * own kubelet model, behind the real Service, with real HTTP clients.
     *
     * @param name a scenario of {@link #LIVE}
     * @param replicas 1–{@value LiveFleet#MAX_REPLICAS}
     * @param progress receives a line now and then
     * @return one single-run ensemble per wiring (seed: the scenario's)
     * @throws IllegalArgumentException for a scenario the live engine does not replay or a bad size
     * @throws InterruptedException when interrupted (the processes are stopped)
     */
    public static List<Run> runLive(String name, int replicas, java.util.function.Consumer<String> progress) throws InterruptedException {
        if (!LIVE.contains(name)) {
            throw new IllegalArgumentException("--live replays " + String.join(", ", LIVE) + ", not '" + name
                    + "' (its clients keep connections, which the live engine does not drive; it runs on the model engine)");
        }
        if (replicas < 1 || replicas > LiveFleet.MAX_REPLICAS) {
            throw new IllegalArgumentException("--replicas must be 1-" + LiveFleet.MAX_REPLICAS + " with --live, was " + replicas);
        }
        List<Run> out = new ArrayList<>();
        for (FleetScenarios.Wiring w : FleetScenarios.Wiring.values()) {
            FleetSpec spec = FleetScenarios.spec(name, replicas, w);
            FleetSpec.Clients c = spec.clients().get(0);
            List<String> cmd = SyntheticReplica.command(spec.replica(), new long[] {c.serviceMin().toMillis(), c.serviceMax().toMillis()});
            String label = name + " " + w.flag() + " (live)";
            progress.accept(label + ": starting " + replicas + " replicas");
            FleetResult r = new LiveFleet(spec, cmd, 0, "/", ProcessBuilder.Redirect.DISCARD, progress, label).run();
            out.add(new Run(name, w, new FleetEnsemble(label, List.of(spec.seed()), List.of(r), spec.expectations())));
        }
        return out;
    }

    /**
     * Groups the runs' results by configuration.
     *
     * @param runs the runs, as run
     * @return the ensembles of the runs, in order
     */
    public static List<FleetEnsemble> ensembles(List<Run> runs) {
        List<FleetEnsemble> r = new ArrayList<>();
        runs.forEach(x -> r.add(x.ensemble()));
        return r;
    }

    /**
     * The runs as one JSON report.
     *
     * @param runs the runs, as run
     * @return the JSON report ({@link FleetReport#ensembleJson})
     */
    public static String json(List<Run> runs) {
        List<String> scenarios = new ArrayList<>();
        List<String> wirings = new ArrayList<>();
        for (Run r : runs) {
            scenarios.add(r.scenario());
            wirings.add(r.wiring().flag());
        }
        return FleetReport.ensembleJson(ensembles(runs), scenarios, wirings);
    }

    /**
     * The verdicts of the runs' expectations.
     *
     * @param runs the runs, as run
     * @return one line per expectation and ensemble: the verdict over the runs
     */
    public static String verdicts(List<Run> runs) {
        StringBuilder sb = new StringBuilder();
        for (Run r : runs) {
            sb.append(FleetReport.verdicts(r.ensemble()));
        }
        return sb.toString();
    }
}
