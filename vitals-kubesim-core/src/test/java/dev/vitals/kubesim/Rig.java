package dev.vitals.kubesim;

import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.VirtualTime;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.runtime.ScriptedContainer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** A virtual-clock simulation rig for rule tests: kubelet model, scripted container and probes. */
public final class Rig {
    public final VirtualTime time = new VirtualTime();
    public final ScriptedContainer container = new ScriptedContainer(time);
    public final List<SimEvent> events = new ArrayList<>();
    public SimulationResult result;

    public static ProbeSpec probe(ProbeType type, int delay, int period, int timeout, int success, int failure) {
        return new ProbeSpec(type, new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(8080), "/" + type.label(),
                "HTTP", List.of()), delay, timeout, period, success, failure, OptionalLong.empty());
    }

    public static ProbeSpec probe(ProbeType type, int delay, int period, int failure) {
        return probe(type, delay, period, 1, 1, failure);
    }

    public static PodSpec pod(ProbeSpec... probes) {
        Optional<ProbeSpec> s = Optional.empty();
        Optional<ProbeSpec> l = Optional.empty();
        Optional<ProbeSpec> r = Optional.empty();
        for (ProbeSpec p : probes) {
            if (p.type() == ProbeType.STARTUP) {
                s = Optional.of(p);
            } else if (p.type() == ProbeType.LIVENESS) {
                l = Optional.of(p);
            } else {
                r = Optional.of(p);
            }
        }
        return PodSpec.of("app", Map.of(), s, l, r);
    }

    public SimulationResult run(PodSpec pod, double seconds, ScriptedProbes.Script script) {
        return run(pod, seconds, script, KubeletOptions.defaults());
    }

    public SimulationResult run(PodSpec pod, double seconds, ScriptedProbes.Script script, KubeletOptions opts) {
        try {
            result = Simulation.builder(pod).time(time).runtime(container)
                    .probeExecutor(new ScriptedProbes(time, container, script)).options(opts).listener(events::add)
                    .duration(Duration.ofMillis(Math.round(seconds * 1000))).build().run();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        return result;
    }

    public List<SimEvent> of(Predicate<SimEvent> p) {
        return events.stream().filter(p).collect(Collectors.toList());
    }

    public List<SimEvent> probes(ProbeType t) {
        return of(e -> e.type() == SimEvent.Type.PROBE && e.probe().orElse(null) == t);
    }

    /** Times the probes of a type started (completion minus latency), rounded to ms. */
    public List<Double> probeStarts(ProbeType t) {
        return probes(t).stream().map(e -> round(e.at().toNanos() / 1e9 - e.latency().map(Durations::seconds).orElse(0.0)))
                .collect(Collectors.toList());
    }

    public List<Double> times(SimEvent.Type type) {
        return of(e -> e.type() == type).stream().map(e -> round(e.at().toNanos() / 1e9)).collect(Collectors.toList());
    }

    public List<SimEvent> typed(SimEvent.Type type) {
        return of(e -> e.type() == type);
    }

    public static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
