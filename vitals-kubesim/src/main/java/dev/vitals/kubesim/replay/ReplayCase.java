package dev.vitals.kubesim.replay;

import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.Resources;
import dev.vitals.kubesim.model.RestartPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One row pair of the replay table: the demo's flags, the probes (same timing for both
 * wirings; naive probes hit {@code /healthz} on the application port, Vitals probes
 * {@code /livez}, {@code /readyz}, {@code /startupz} on the probe port), the actions, the run
 * length and what each wiring is expected to do. Immutable; build with {@link #builder(String, String)}.
 */
public final class ReplayCase {
    /** Pod {@code terminationGracePeriodSeconds} of every run: kubelet's floor (R44), so kills are quick. */
    public static final long GRACE_SECONDS = 2;

    private final String name;
    private final String scenario;
    private final String title;
    private final Duration duration;
    private final List<String> demoFlags;
    private final ProbeTiming liveness;
    private final ProbeTiming readiness;
    private final Map<Wiring, Optional<ProbeTiming>> startup;
    private final List<ReplayStep> steps;
    private final Map<Wiring, List<RunExpectation>> expectations;
    private final List<Margin> margins;
    private final Optional<String> skip;
    private final double readyAllowance;
    private final boolean grpcProbes;
    private final List<Wiring> wirings;
    private final Resources resources;

    private ReplayCase(Builder b) {
        this.resources = b.resources;
        this.grpcProbes = b.grpcProbes;
        this.name = b.name;
        this.scenario = b.scenario;
        this.title = b.title;
        this.duration = b.duration;
        this.demoFlags = List.copyOf(b.demoFlags);
        this.liveness = b.liveness;
        this.readiness = b.readiness;
        this.startup = new EnumMap<>(b.startup);
        this.steps = List.copyOf(b.steps);
        Map<Wiring, List<RunExpectation>> e = new EnumMap<>(Wiring.class);
        for (Wiring w : Wiring.values()) {
            e.put(w, List.copyOf(b.expectations.get(w)));
        }
        this.expectations = e;
        this.margins = List.copyOf(b.margins);
        this.skip = b.skip;
        this.readyAllowance = b.readyAllowance;
        this.wirings = List.copyOf(b.wirings);
    }

    /**
     * @return seconds from spawn the run allows for its first Ready before the actions (which
     *         are timed from that Ready); 0 when the case has no actions
     */
    public double readyAllowanceSeconds() {
        return readyAllowance;
    }

    /** @return the wirings this case runs, side by side: naive and vitals unless the case says otherwise */
    public List<Wiring> wirings() {
        return wirings;
    }

    /**
     * @param name the row name, e.g. {@code incident-burst}
     * @param scenario the scenario it belongs to, e.g. {@code incident}
     * @return a builder
     */
    public static Builder builder(String name, String scenario) {
        return new Builder(name, scenario);
    }

    /** @return the row name (unique in the catalog) */
    public String name() {
        return name;
    }

    /** @return the scenario it belongs to ({@code incident}, {@code db-outage}, {@code slow-start}, {@code stall}) */
    public String scenario() {
        return scenario;
    }

    /** @return what happens, in one line */
    public String title() {
        return title;
    }

    /** @return how long each run lasts (simulated = wall time) */
    public Duration duration() {
        return duration;
    }

    /** @return extra {@code vitals-demo} flags, the same for both wirings */
    public List<String> demoFlags() {
        return demoFlags;
    }

    /** @return the steps (the actions and their timing), in the order given */
    public List<ReplayStep> steps() {
        return steps;
    }

    /** @return liveness timing (both wirings) */
    public ProbeTiming liveness() {
        return liveness;
    }

    /** @return readiness timing (both wirings) */
    public ProbeTiming readiness() {
        return readiness;
    }

    /**
     * The startup probe of one wiring.
     *
     * @param w the wiring
     * @return the startup probe timing of one wiring, if it has one
     */
    public Optional<ProbeTiming> startup(Wiring w) {
        return startup.get(w);
    }

    /**
     * The expectations of one wiring's run.
     *
     * @param w the wiring
     * @return what the run of {@code w} must show
     */
    List<RunExpectation> expectations(Wiring w) {
        return expectations.get(w);
    }

    /**
     * @return the case's predicted margins (from the calibrated boot time and the scenario's
     *         numbers): each must be at least 2× for the case to be judged
     */
    List<Margin> margins() {
        return margins;
    }

    /**
     * @return why this case cannot be judged on this machine (a margin that sizing could not
     *         reach within {@link Sizing#MAX_RUN}), if so; a skipped case is not run
     */
    public Optional<String> skip() {
        return skip;
    }

    /**
     * @param w the wiring
     * @return its startup probe's budget, seconds ({@code periodSeconds × failureThreshold}), if it has one
     */
    public Optional<Double> startupBudgetSeconds(Wiring w) {
        return startup(w).map(t -> (double) t.periodSeconds() * t.failureThreshold());
    }

    /**
     * The pod the kubelet model probes in the run of {@code w}.
     *
     * @param w the wiring
     * @param appPort the demo's application port
     * @param probePort the demo's probe port (Vitals wiring)
     * @return the pod: container {@code demo}, restartPolicy Always, grace {@link #GRACE_SECONDS}
     */
    public PodSpec pod(Wiring w, int appPort, int probePort) {
        boolean naive = !w.probesVitalsEndpoints();
        int port = naive ? appPort : probePort;
        Optional<ProbeSpec> s = startup(w).map(t -> probe(ProbeType.STARTUP, port, naive ? "/healthz" : "/startupz", t));
        ProbeSpec l = probe(ProbeType.LIVENESS, port, naive ? "/healthz" : "/livez", liveness);
        ProbeSpec r = probe(ProbeType.READINESS, port, naive ? "/healthz" : "/readyz", readiness);
        return new PodSpec("demo", Map.of("http", appPort, "probes", probePort), s, Optional.of(l), Optional.of(r),
                RestartPolicy.ALWAYS, GRACE_SECONDS);
    }

    /**
     * @return the container's resources in both runs: each demo instance runs in its own cgroup
     *         with them ({@link dev.vitals.kubesim.runtime.ResourceLimits}); {@link Resources#NONE}
     *         for the unconstrained scenarios
     */
    public Resources resources() {
        return resources;
    }

    /** @return whether the Vitals run is probed over gRPC ({@code grpc.health.v1}, the demo's {@code --grpc-port}) */
    public boolean grpcProbes() {
        return grpcProbes;
    }

    /**
     * The demo flags the run of {@code w} needs for gRPC probes: {@code --grpc-port N} for the
     * Vitals wiring of a {@link #grpcProbes()} case, else none.
     *
     * @param w the wiring
     * @param grpcPort the port picked for the demo's gRPC health server
     * @return the flags
     */
    public List<String> grpcFlags(Wiring w, int grpcPort) {
        return grpcProbes && w == Wiring.VITALS ? List.of("--grpc-port", Integer.toString(grpcPort)) : List.of();
    }

    /**
     * As {@link #pod(Wiring, int, int)}; in a {@link #grpcProbes()} case the Vitals run's probes
     * are gRPC probes on {@code grpcPort} with services {@code startup}, {@code liveness} and
     * {@code ""} (readiness: kubelet's probe without a service), as a manifest would say
     * {@code grpc: {port: N, service: liveness}}.
     *
     * @param w the wiring
     * @param appPort the demo's application port
     * @param probePort the demo's probe port (Vitals wiring)
     * @param grpcPort the demo's gRPC health port (Vitals wiring of a gRPC case)
     * @return the pod
     */
    public PodSpec pod(Wiring w, int appPort, int probePort, int grpcPort) {
        if (!grpcProbes || w != Wiring.VITALS) {
            return pod(w, appPort, probePort);
        }
        Optional<ProbeSpec> s = startup(w).map(t -> grpcProbe(ProbeType.STARTUP, grpcPort, "startup", t));
        ProbeSpec l = grpcProbe(ProbeType.LIVENESS, grpcPort, "liveness", liveness);
        ProbeSpec r = grpcProbe(ProbeType.READINESS, grpcPort, "", readiness);
        return new PodSpec("demo", Map.of("http", appPort, "probes", probePort, "grpc", grpcPort), s, Optional.of(l),
                Optional.of(r), RestartPolicy.ALWAYS, GRACE_SECONDS);
    }

    private static ProbeSpec grpcProbe(ProbeType type, int port, String service, ProbeTiming t) {
        return ProbeSpec.builder(type)
                .handler(new ProbeHandler.Grpc(port, service))
                .periodSeconds(t.periodSeconds()).timeoutSeconds(t.timeoutSeconds()).failureThreshold(t.failureThreshold())
                .build();
    }

    private static ProbeSpec probe(ProbeType type, int port, String path, ProbeTiming t) {
        return ProbeSpec.builder(type)
                .handler(new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(port), path, "HTTP", List.of()))
                .periodSeconds(t.periodSeconds()).timeoutSeconds(t.timeoutSeconds()).failureThreshold(t.failureThreshold())
                .build();
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final String name;
        private final String scenario;
        private String title = "";
        private Duration duration = Duration.ofSeconds(30);
        private final List<String> demoFlags = new ArrayList<>();
        private ProbeTiming liveness = new ProbeTiming(10, 1, 3);
        private ProbeTiming readiness = new ProbeTiming(10, 1, 3);
        private final Map<Wiring, Optional<ProbeTiming>> startup = new EnumMap<>(Wiring.class);
        private final List<ReplayStep> steps = new ArrayList<>();
        private final Map<Wiring, List<RunExpectation>> expectations = new EnumMap<>(Wiring.class);
        private final List<Margin> margins = new ArrayList<>();
        private Optional<String> skip = Optional.empty();
        private double readyAllowance;
        private boolean grpcProbes;
        private List<Wiring> wirings = List.of(Wiring.NAIVE, Wiring.VITALS);
        private Resources resources = Resources.NONE;

        private Builder(String name, String scenario) {
            if (!Objects.requireNonNull(name, "name").matches("[a-z0-9-]+")) {
                throw new IllegalArgumentException("case name must be lower-case letters, digits and '-', was '" + name + "'");
            }
            this.name = name;
            this.scenario = Objects.requireNonNull(scenario, "scenario");
            for (Wiring w : Wiring.values()) {
                startup.put(w, Optional.empty());
                expectations.put(w, new ArrayList<>());
            }
        }

        /**
         * @param t what happens, in one line
         * @return this builder
         */
        public Builder title(String t) {
            this.title = Objects.requireNonNull(t, "title");
            return this;
        }

        /**
         * @param d run length, at least 5 s
         * @return this builder
         */
        public Builder duration(Duration d) {
            if (d.compareTo(Duration.ofSeconds(5)) < 0) {
                throw new IllegalArgumentException("case '" + name + "': duration must be at least 5 s, was " + d);
            }
            this.duration = d;
            return this;
        }

        /**
         * @param flags extra demo flags
         * @return this builder
         */
        public Builder demoFlags(String... flags) {
            demoFlags.addAll(List.of(flags));
            return this;
        }

        /**
         * @param t liveness timing of both wirings
         * @return this builder
         */
        public Builder liveness(ProbeTiming t) {
            this.liveness = Objects.requireNonNull(t, "liveness");
            return this;
        }

        /**
         * @param t readiness timing of both wirings
         * @return this builder
         */
        public Builder readiness(ProbeTiming t) {
            this.readiness = Objects.requireNonNull(t, "readiness");
            return this;
        }

        /**
         * @param w the wiring that gets a startup probe
         * @param t its timing
         * @return this builder
         */
        public Builder startup(Wiring w, ProbeTiming t) {
            startup.put(w, Optional.of(t));
            return this;
        }

        /**
         * @param a a step (both wirings)
         * @return this builder
         */
        public Builder step(ReplayStep a) {
            steps.add(Objects.requireNonNull(a, "step"));
            return this;
        }

        /**
         * @param w the wiring
         * @param e what its run must show
         * @return this builder
         */
        Builder expect(Wiring w, RunExpectation e) {
            expectations.get(w).add(Objects.requireNonNull(e, "expectation"));
            return this;
        }

        /**
         * The Vitals run is probed over gRPC (the demo gets {@code --grpc-port}); the naive run keeps HTTP.
         *
         * @return this builder
         */
        public Builder grpcProbes() {
            this.grpcProbes = true;
            return this;
        }


        /**
         * @param r the container's resources in both runs (default none)
         * @return this builder
         */
        public Builder resources(Resources r) {
            this.resources = Objects.requireNonNull(r, "resources");
            return this;
        }

        /**
         * @param m a predicted margin of one of the case's expectations
         * @return this builder
         */
        Builder margin(Margin m) {
            margins.add(Objects.requireNonNull(m, "margin"));
            return this;
        }

        /**
         * @param seconds how long from spawn the run allows for its first Ready before the actions, ≥ 0
         * @return this builder
         */
        public Builder readyAllowance(double seconds) {
            if (!(seconds >= 0)) {
                throw new IllegalArgumentException("case '" + name + "': ready allowance must be >= 0, was " + seconds);
            }
            this.readyAllowance = seconds;
            return this;
        }

        /**
         * @param reason why the case cannot be judged on this machine: it is reported, not run
         * @return this builder
         */
        public Builder skip(String reason) {
            this.skip = Optional.of(Objects.requireNonNull(reason, "reason"));
            return this;
        }

        /**
         * @param first the first wiring to run
         * @param more the others (default: naive and vitals)
         * @return this builder
         */
        public Builder wirings(Wiring first, Wiring... more) {
            List<Wiring> w = new ArrayList<>();
            w.add(Objects.requireNonNull(first, "first"));
            w.addAll(List.of(more));
            this.wirings = List.copyOf(w);
            return this;
        }

        /**
         * @return the case; skipped with a reason when a predicted margin is below its requirement
         *         or the run would be longer than {@link Sizing#MAX_RUN}
         */
        public ReplayCase build() {
            if (skip.isEmpty()) {
                for (Margin m : margins) {
                    if (!m.holds()) {
                        skip = Optional.of("margin too small on this machine: " + m.describe());
                        break;
                    }
                }
            }
            if (skip.isEmpty() && duration.compareTo(Sizing.MAX_RUN) > 0) {
                skip = Optional.of("needs a " + duration.toSeconds() + " s run on this machine (longest allowed "
                        + Sizing.MAX_RUN.toSeconds() + " s)");
            }
            return new ReplayCase(this);
        }
    }
}
