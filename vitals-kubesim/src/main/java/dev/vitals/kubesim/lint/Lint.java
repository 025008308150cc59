package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.InvalidInputException;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.VirtualTime;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.runtime.ScriptedContainer;
import dev.vitals.kubesim.scenario.Expectation;
import dev.vitals.kubesim.scenario.Violation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Static findings about a container's probes, each with the rule it rests on and a fix.
 * Timing findings are not guessed: they replay kubelet's rules on a {@link VirtualTime}
 * (the same model {@code vitals simulate} uses), so lint and simulate predict the same kill
 * times. Stateless and thread-safe.
 */
public final class Lint {
    /** Liveness and readiness probe the same endpoint. */
    public static final String SAME_ENDPOINT = "L1-same-endpoint";
    /** The startup budget is shorter than the real start-up time. */
    public static final String STARTUP_BUDGET = "L2-startup-budget";
    /** Liveness gives up sooner than readiness. */
    public static final String LIVENESS_TIMEOUT = "L3-liveness-timeout";
    /** Liveness can kill before readiness sheds traffic. */
    public static final String RESTART_BEFORE_SHED = "L4-restart-before-shed";
    /** No startup probe but a long liveness initialDelaySeconds. */
    public static final String MISSING_STARTUP = "L5-missing-startup-probe";
    private static final int LONG_DELAY = 30;

    private Lint() {
    }

    /**
     * One finding.
     *
     * @param id lint id (e.g. {@code L2-startup-budget}) or the API rule of a rejected value
     * @param severity {@code error} (the API server rejects it) or {@code warning}
     * @param where container and field
     * @param message what is wrong, with the numbers
     * @param rules the spec rules it rests on, e.g. {@code R16, R17, R33}
     * @param fix a suggested fix
     */
    public record Finding(String id, String severity, String where, String message, String rules, String fix) {
        public Finding {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(severity, "severity");
            Objects.requireNonNull(where, "where");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(rules, "rules");
            Objects.requireNonNull(fix, "fix");
        }

        @Override
        public String toString() {
            return severity.toUpperCase(Locale.ROOT) + " [" + id + "] " + where + ": " + message + " (" + rules + ")\n    fix: " + fix;
        }
    }

    /**
     * Lints every container with probes in a manifest.
     *
     * @param manifest the manifest
     * @param container only this container, if given
     * @param startupTime how long the application really needs to start, if known
     * @return findings in container order
     * @throws InvalidInputException when {@code container} names no container
     */
    public static List<Finding> lint(ManifestReader.Manifest manifest, Optional<String> container,
            Optional<Duration> startupTime) {
        List<Finding> out = new ArrayList<>();
        List<ManifestReader.ContainerEntry> entries = container.isPresent() ? List.of(manifest.select(container))
                : manifest.containers();
        for (ManifestReader.ContainerEntry c : entries) {
            List<Violation> violations = c.validate();
            for (Violation v : violations) {
                boolean reject = !v.rule().equals("R22");
                out.add(new Finding(v.rule(), reject ? "error" : "warning", v.field(),
                        (reject ? "the API server would reject this: " : "") + v.message(), v.rule(), v.fix()));
            }
            if (violations.isEmpty()) {
                out.addAll(lint(c.toPodSpec(), c.prefix(), startupTime));
            }
        }
        return out;
    }

    /**
     * Lints one valid pod model.
     *
     * @param pod the container's probes
     * @param where label used in findings
     * @param startupTime how long the application really needs to start, if known
     * @return findings
     */
    public static List<Finding> lint(PodSpec pod, String where, Optional<Duration> startupTime) {
        List<Finding> out = new ArrayList<>();
        Optional<ProbeSpec> live = pod.liveness();
        Optional<ProbeSpec> ready = pod.readiness();
        Optional<ProbeSpec> start = pod.startup();
        if (live.isPresent() && ready.isPresent() && sameEndpoint(live.get().handler(), ready.get().handler())) {
            out.add(new Finding(SAME_ENDPOINT, "warning", where + ".livenessProbe",
                    "liveness and readiness probe the same endpoint (" + live.get().handler().describe()
                            + "): whatever makes the pod unready (a slow or failed dependency, load) also restarts it",
                    "R38, C1, C10", "serve /livez (process health only) for liveness and /readyz (dependencies) for readiness"));
        }
        if (live.isPresent() && ready.isPresent() && live.get().timeoutSeconds() < ready.get().timeoutSeconds()) {
            out.add(new Finding(LIVENESS_TIMEOUT, "warning", where + ".livenessProbe.timeoutSeconds",
                    "liveness timeout " + live.get().timeoutSeconds() + "s is shorter than readiness timeout "
                            + ready.get().timeoutSeconds() + "s: under load the liveness probe gives up first, so the pod"
                            + " is restarted where shedding traffic would have done",
                    "R59, G6", "set livenessProbe.timeoutSeconds ≥ " + ready.get().timeoutSeconds()));
        }
        if (live.isPresent() && ready.isPresent()) {
            int killAfter = live.get().failureThreshold() * live.get().periodSeconds();
            int shedAfter = ready.get().failureThreshold() * ready.get().periodSeconds();
            if (killAfter <= shedAfter) {
                int ft = Math.max(1, (killAfter - 1) / ready.get().periodSeconds());
                out.add(new Finding(RESTART_BEFORE_SHED, "warning", where,
                        "liveness kills after about " + killAfter + "s of failures (failureThreshold "
                                + live.get().failureThreshold() + " × periodSeconds " + live.get().periodSeconds()
                                + ") but readiness needs " + shedAfter + "s (" + ready.get().failureThreshold() + " × "
                                + ready.get().periodSeconds() + ") to take the pod out of service: a shared problem restarts the"
                                + " pod before (or instead of) shedding traffic",
                        "R25, R26, R38",
                        "make readiness react first: readinessProbe.failureThreshold ≤ " + ft + " at periodSeconds "
                                + ready.get().periodSeconds() + ", or raise livenessProbe.failureThreshold above "
                                + (shedAfter / live.get().periodSeconds() + 1)));
            }
        }
        if (start.isEmpty() && live.isPresent() && live.get().initialDelaySeconds() >= LONG_DELAY) {
            ProbeSpec l = live.get();
            out.add(new Finding(MISSING_STARTUP, "warning", where + ".livenessProbe.initialDelaySeconds",
                    "no startupProbe, and liveness waits initialDelaySeconds " + l.initialDelaySeconds()
                            + "s: a start slower than that is killed; a faster one runs unprotected for the rest",
                    "R16, R30, R33, G1",
                    "add a startupProbe on the same endpoint with periodSeconds " + l.periodSeconds() + " and failureThreshold "
                            + Math.max(3, ceilDiv(2 * l.initialDelaySeconds(), l.periodSeconds()))
                            + " (budget ≈ 2× the delay), and drop livenessProbe.initialDelaySeconds to 0"));
        }
        if (startupTime.isPresent() && (live.isPresent() || start.isPresent())) {
            double need = Durations.seconds(startupTime.get());
            Prediction p = predictKill(pod, startupTime.get());
            if (p.killAt().isPresent()) {
                ProbeSpec killer = pod.probe(p.killer()).orElseThrow();
                int period = start.map(ProbeSpec::periodSeconds).orElse(killer.periodSeconds());
                int ft = (int) Math.ceil(need * 1.5 / period);
                out.add(new Finding(STARTUP_BUDGET, "warning", where + "." + p.killer().fieldName(),
                        String.format(Locale.ROOT, "a container that needs %.0fs to start is killed by the %s probe at %.1fs"
                                + " (first probe at %.1fs, %d failures %ds apart), and every restart is killed the same way"
                                + " (CrashLoopBackOff)", need, p.killer().label(), p.killAt().get(), p.firstProbeAt(),
                                killer.failureThreshold(), killer.periodSeconds()),
                        "R16, R17, R25, R33, C11",
                        "startupProbe on the liveness endpoint with periodSeconds " + period + " and failureThreshold " + ft
                                + " (budget " + (ft * period) + "s ≥ 1.5 × " + Expectation.fmt(need) + "s)"
                                + (start.isEmpty() ? ", and livenessProbe.initialDelaySeconds 0" : "")));
            }
        }
        return out;
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    private static boolean sameEndpoint(ProbeHandler a, ProbeHandler b) {
        if (a instanceof ProbeHandler.HttpGet && b instanceof ProbeHandler.HttpGet) {
            ProbeHandler.HttpGet x = (ProbeHandler.HttpGet) a;
            ProbeHandler.HttpGet y = (ProbeHandler.HttpGet) b;
            return x.port().equals(y.port()) && x.host().equals(y.host()) && x.scheme().equals(y.scheme())
                    && stripQuery(x.path()).equals(stripQuery(y.path()));
        }
        return a.equals(b);
    }

    private static String stripQuery(String p) {
        int q = p.indexOf('?');
        return q < 0 ? p : p.substring(0, q);
    }

    /**
     * When the kubelet first kills a container that does not answer any probe until
     * {@code startupTime} after it starts (and answers every probe after).
     *
     * @param killAt seconds from the simulation start to the first kill, if any
     * @param killer the probe that killed
     * @param firstProbeAt seconds to the first probe of the killer
     */
    public record Prediction(Optional<Double> killAt, ProbeType killer, double firstProbeAt) {
    }

    /**
     * Replays the kubelet model on a {@link VirtualTime} against an application that fails
     * every probe at once (connection refused: nothing listens yet) until it has run
     * {@code startupTime}.
     *
     * @param pod the probes
     * @param startupTime the application's start-up time
     * @return the first kill, if one happens before the application is up
     */
    public static Prediction predictKill(PodSpec pod, Duration startupTime) {
        double need = Durations.seconds(startupTime);
        VirtualTime vt = new VirtualTime();
        ScriptedContainer c = new ScriptedContainer(vt);
        ScriptedProbes probes = new ScriptedProbes(vt, c, (p, inst, since, t) -> since < need ? ScriptedProbes.fail()
                : ScriptedProbes.ok());
        List<SimEvent> events = new ArrayList<>();
        try {
            Simulation.builder(pod).time(vt).runtime(c).probeExecutor(probes).listener(events::add)
                    .duration(Duration.ofNanos(startupTime.toNanos() + Duration.ofSeconds(1).toNanos())).build().run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        for (SimEvent e : events) {
            if (e.type() == SimEvent.Type.KILL) {
                ProbeType killer = e.probe().orElseThrow();
                double first = events.stream().filter(x -> x.type() == SimEvent.Type.PROBE && x.probe().orElse(null) == killer)
                        .mapToDouble(x -> x.t() - x.latency().map(Durations::seconds).orElse(0.0)).min().orElse(e.t());
                return new Prediction(Optional.of(e.t()), killer, first);
            }
        }
        return new Prediction(Optional.empty(), ProbeType.LIVENESS, 0);
    }
}
